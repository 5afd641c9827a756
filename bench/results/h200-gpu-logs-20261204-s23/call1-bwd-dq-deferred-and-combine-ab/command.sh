#!/usr/bin/env bash
# Session 23 call 1: two prepared candidates A/B'd together against 0867d61 (change commit in
# .ab/change_commit): ea639a9 re-applied (D 256 backward: dQ slice 1 staged at the next step's start, after
# its Sᵀ / dPᵀ are issued) on the D 256 backward grid, and 97f73ae re-applied (decode combine kernel: 16
# splits' partials loaded before merging) on the decode grid. The two touch disjoint kernels, so each grid
# measures one of them. D 128 + 256 kernels; CudaBackwardSm90.* and KVCacheCuda.* at the quick tier while the
# base builds; then compute-sanitizer memcheck of the change on one backward and one cache test.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="128;256" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*:KVCacheCuda.*' \
  FLASHATTN_GPU_TIER=quick AB_PEERS_ARGS="--op bwd --head-dims 256; --op decode" \
  timeout 470 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:KVCacheCuda.PageSizesAndEdgeLengthsMatchOracle' \
  > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_memcheck.log | head -6
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
