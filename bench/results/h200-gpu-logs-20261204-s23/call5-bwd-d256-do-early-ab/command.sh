#!/usr/bin/env bash
# Session 23 call 5: the D 256 backward with dO released right after the dS barrier and Sᵀ issued before
# dO is waited for (change commit in .ab/change_commit) against its parent, on the D 256 backward grid
# (two interleaved runs a side, cuDNN after); D 256 kernels only; CudaBackwardSm90.* at the quick tier
# while the base builds; then compute-sanitizer memcheck of the change on the off-tile-multiple lengths.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="256" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op bwd --head-dims 256" timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
FLASHATTN_GPU_TIER=quick timeout 50 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_memcheck.log | head -4
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
