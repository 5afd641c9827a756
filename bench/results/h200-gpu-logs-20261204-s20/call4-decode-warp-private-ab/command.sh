#!/usr/bin/env bash
# Session 20 call 4 (fresh machine): A/B of the decode kernel's warp-private K/V copies (change commit in
# .ab/change_commit) against a2d41b3 on the decode grid (Hq 32, Hkv 8, D 128, bf16; flashattn dense and
# paged 16, two interleaved runs a side, cuDNN after), D 64 / 128 / 256 kernels built, with the change's
# KVCacheCuda tests (quick tier) while the base builds; then compute-sanitizer racecheck and memcheck of the
# change on two decode tests (page sizes and edge lengths; split counts).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build AB_TESTS='KVCacheCuda.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op decode" timeout 420 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
for tool in racecheck memcheck; do
  FLASHATTN_GPU_TIER=quick timeout 50 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='KVCacheCuda.PageSizesAndEdgeLengthsMatchOracle:KVCacheCuda.SplitCountsAgreeWithinRounding' \
    > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_$tool.log | head -4
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
