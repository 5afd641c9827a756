#!/usr/bin/env bash
# Session 28 call 1 (prepared in session 27). Three D 64
# backward candidates in one scripts/ab call against main's kernels, on the D 64 grid (bf16; default and
# deterministic rows), each with CudaBackwardSm90.* at the quick tier:
#   change (working tree): dQ by head-dim halves with K and V in registers (8ca4b97, cherry-picked);
#   c1: K in registers next to the own-keys dQ (29686e2's tree);
#   c2: step 0's lse and D loaded before the wait for K and V (c55fa3e's tree; every head dim).
# Then the deferred dQ hand-over (2e54913) on top of the winner is the next A/B (D 64 + 128 grid; it
# cherry-picks cleanly onto either), with racecheck / synccheck, since it moves the writer's barriers.
# Prepare on main, from the repository root:
#   mkdir -p .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' &&
#   for c in 29686e2:c1 c55fa3e:c2; do git archive ${c%%:*} -o .ab/${c##*:}.tar -- . ':!bench/results'; done &&
#   gzip .ab/*.tar && git cherry-pick 8ca4b97 && git rev-parse HEAD > .ab/change_commit
# and run with carry [".ab", "third_party/cutlass"] through ../wrap.sh (limit 585).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
# Three tarball trees of 5 D 64 kernel TUs each: 5 jobs apiece (with the working tree's 16, about twice the
# cores; one round of TUs each instead of three at the default share).
FLASHATTN_HEAD_DIMS="64" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn,flashattn_det AB_TREE_JOBS=5 \
  AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd --head-dims 64" \
  timeout 560 scripts/ab $L/ab .ab/base.tar .ab/c1.tar .ab/c2.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -hE "PASSED|FAILED|tests," $L/ab/tests*.log | head -20
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
