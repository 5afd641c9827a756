#!/usr/bin/env bash
# Session 28 call 3: call 2 again with the persistent kernel's producer at 24 registers (at 32 the register
# split exceeded the CTA's launch allocation and setmaxnreg.inc hung). The working tree (persistent + D 64's
# epilogue in the dS buffer) against the kept kernels (branch `kept`, 86e7306), D 64 / 128 / 256 grid,
# default rows, with cuDNN's run after; CudaBackwardSm90.* at the quick tier gate the timing (AB_TESTS_GATE,
# 60 s limit); then racecheck / synccheck / memcheck of the tests that cross tiles in most ways.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn AB_TESTS='CudaBackwardSm90.*' AB_TESTS_TIMEOUT=60 \
  AB_TESTS_GATE=1 AB_PEERS_ARGS="--op bwd --head-dims 64,128,256" timeout 420 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
ab=$?; echo "ab rc=$ab at $((SECONDS - t0)) s"; cat $L/ab.log | grep "^ab:"; cat $L/ab/ab.txt
grep -hE "PASSED|FAILED|tests," $L/ab/tests*.log | head -20
rm -rf $L/ab/change/build.log
grep -q "PASSED" $L/ab/tests.log || { echo "tests did not pass: no sanitizers"; exit 0; }
san() {  # tool, filter, limit
  FLASHATTN_GPU_TIER=quick timeout $3 compute-sanitizer --tool $1 build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter="$2" > $L/sanitizer_$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/sanitizer_$1.log | head -4
}
san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 45
san synccheck 'CudaBackwardSm90.Deterministic*' 40
san memcheck 'CudaBackwardSm90.Varlen*:CudaBackwardSm90.LengthsOffTileMultiples' 40
echo "done at $((SECONDS - t0)) s"
