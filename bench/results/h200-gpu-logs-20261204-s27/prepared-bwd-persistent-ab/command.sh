#!/usr/bin/env bash
# Prepared in session 27, not yet run. The persistent backward (22b6390; reverted on main). From the
# repository root, on main (its kernels are the base):
#   mkdir -p .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' && gzip .ab/base.tar &&
#   git cherry-pick 22b6390 && git rev-parse HEAD > .ab/change_commit
# (then, as a second candidate on top, D 64's epilogue in the dS buffer: git cherry-pick 1e654fc)
# and run with carry [".ab", "third_party/cutlass"] through ../wrap.sh (limit 585), in two calls (one does
# not hold both): `command.sh tests` builds the change and runs CudaBackwardSm90.* at the quick tier under a
# timeout (a barrier-protocol error across tiles would hang, not fail), racecheck / synccheck of the varlen
# and deterministic tests; then, only if they passed, `command.sh ab`: the A/B against main on the whole
# backward grid (D 64 / 128 / 256, default rows).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
if [[ ${1:-} == ab ]]; then
  # The working tree is built already when the machine is still warm from the `tests` call: the base then
  # takes every core. Default rows only (four runs of the whole grid); the deterministic rows another time.
  AB_CHANGE_STEPS=build AB_TREE_JOBS=$(nproc) AB_IMPLS=flashattn AB_PEERS_ARGS="--op bwd --head-dims 64,128,256" \
    timeout 560 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
  echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt
  rm -rf $L/ab/change/build.log
  exit 0
fi
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
FLASHATTN_GPU_TIER=quick timeout 90 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaBackwardSm90.*' \
  > $L/tests.log 2>&1
tests=$?; echo "tests rc=$tests at $((SECONDS - t0)) s"; grep -E "OK|FAILED|PASSED" $L/tests.log | head -14
san() {  # tool, filter, limit
  FLASHATTN_GPU_TIER=quick timeout $3 compute-sanitizer --tool $1 build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter="$2" > $L/sanitizer_$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/sanitizer_$1.log | head -4
}
san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 45
san synccheck 'CudaBackwardSm90.Deterministic*' 40
echo "done at $((SECONDS - t0)) s"
