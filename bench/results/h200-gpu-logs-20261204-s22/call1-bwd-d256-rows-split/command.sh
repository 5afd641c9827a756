#!/usr/bin/env bash
# Session 22 call 1: the sm90 backward at D 256 with 64 query rows a step (each warpgroup Sᵀ / dPᵀ of 32
# rows, dQ by 8-byte reductions; change commit in .ab/change_commit) against f7b99fa (32 rows a step):
# CudaBackwardSm90.* at the quick tier while the base builds, then the D 256 backward grid (two interleaved
# runs a side, cuDNN after), then compute-sanitizer memcheck and racecheck of the change.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="256" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op bwd --head-dims 256" \
  timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
for tool in memcheck racecheck; do
  FLASHATTN_GPU_TIER=quick timeout 50 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.DeterministicRerunsAreBitwiseIdentical' \
    > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_$tool.log | head -4
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
