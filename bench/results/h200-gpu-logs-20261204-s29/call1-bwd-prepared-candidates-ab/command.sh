#!/usr/bin/env bash
# Session 29 call 1 (prepared in session 28). Two backward candidates against main's kernels in one scripts/ab call,
# D 64 + 128 grid (bf16, default rows; cuDNN's run after), each with CudaBackwardSm90.* at the quick tier:
#   change (working tree): a step's dQ handed to the writer during the next step (session 27's 2e54913,
#     cherry-picked; D 64 / 128);
#   c1: the persistent kernel with the late take (f42b31d cherry-picked onto main).
# The change's tests gate the timing (AB_TESTS_GATE) under a 150 s limit; the persistent candidate's tests
# run once every build is done, under the same limit. Then racecheck / synccheck of the change (it moves
# the writer's barriers).
# Prepare on main, from the repository root:
#   mkdir -p .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' &&
#   git worktree add --detach /tmp/c1 HEAD && (cd /tmp/c1 && git cherry-pick f42b31d &&
#     git archive HEAD -o /work/main/.ab/c1.tar -- . ':!bench/results') && gzip .ab/*.tar &&
#   git cherry-pick 2e54913 && git rev-parse HEAD > .ab/change_commit
# and run with carry [".ab", "third_party/cutlass"] through ../wrap.sh (limit 585).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="64;128" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn AB_TREE_JOBS=8 \
  AB_TESTS='CudaBackwardSm90.*' AB_TESTS_TIMEOUT=150 AB_TESTS_GATE=1 AB_PEERS_ARGS="--op bwd --head-dims 64,128" \
  timeout 470 scripts/ab $L/ab .ab/base.tar .ab/c1.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "OK|PASSED|FAILED|tests," $L/ab/tests*.log | head -30
rm -rf $L/ab/change/build.log
grep -q "PASSED" $L/ab/tests.log || { echo "the change's tests did not pass: no sanitizers"; exit 0; }
san() {  # tool, filter, limit
  FLASHATTN_GPU_TIER=quick timeout $3 compute-sanitizer --tool $1 build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter="$2" > $L/sanitizer_$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/sanitizer_$1.log | head -4
}
san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 40
san synccheck 'CudaBackwardSm90.Deterministic*' 40
echo "done at $((SECONDS - t0)) s"
