#!/usr/bin/env bash
# Prepared in session 27, not yet run (no device was lent after the session's second call). Two D 64
# backward candidates, each A/B'd against main's kernel on the D 64 grid (bf16; default and deterministic
# rows), with CudaBackwardSm90.* at the quick tier on each while its base builds:
#   A/B 1: dQ by head-dim halves with K and V in registers (8ca4b97's tree);
#   A/B 2: K in registers next to the own-keys dQ (29686e2's tree).
# Then the deferred dQ hand-over (2e54913) on top of the winner is the next A/B (D 64 + 128 grid; it
# cherry-picks cleanly onto either), with racecheck / synccheck, since it moves the writer's barriers.
# Prepare .ab where the commits are (git archive records each tree's commit id for the runs' env):
#   mkdir -p .ab && for c in 239c4be:base 8ca4b97:c3 29686e2:c1; do
#     git archive ${c%%:*} -o .ab/${c##*:}.tar -- . ':!bench/results'; done && gzip .ab/*.tar
# and run with carry [".ab", "third_party/cutlass"] through this directory's ../wrap.sh (limit 585).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
root=$PWD
export FLASHATTN_CUTLASS_DIR=$root/third_party/cutlass/include FLASHATTN_HEAD_DIMS="64" FLASHATTN_GPU_TIER=quick
gunzip -f .ab/*.tar.gz
for c in c3 c1; do
  tree=$(mktemp -d)/$c; mkdir -p $tree && tar xf .ab/$c.tar -C $tree
  (cd $tree && FLASHATTN_COMMIT=$(git get-tar-commit-id < $root/.ab/$c.tar) AB_CHANGE_STEPS=build \
    AB_IMPLS=flashattn,flashattn_det AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd --head-dims 64" \
    BUILD_DIR=$tree/build-gpu timeout 270 scripts/ab $L/ab_$c $root/.ab/base.tar > $L/ab_$c.log 2>&1)
  echo "ab $c rc=$? at $((SECONDS - t0)) s"; cat $L/ab_$c/ab.txt
  grep -E "PASSED|FAILED|tests," $L/ab_$c/tests.log | head -12
  rm -rf $L/ab_$c/change/build.log
done
echo "done at $((SECONDS - t0)) s"
