#!/usr/bin/env bash
# Session 22 call 5 (fresh machine, the session's last device time): A/B of the paged cache's page-id
# prefetch (41f1681 re-applied as ff74fe7; change commit in .ab/change_commit) against 947ef61 on the decode
# grid (Hq 32, Hkv 8, D 128, bf16; flashattn dense and paged 16, two interleaved runs a side, cuDNN after),
# D 128 kernels only, with the change's KVCacheCuda tests (quick tier) while the base builds; then
# compute-sanitizer memcheck of the change on the page-size / edge-length test.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="128" AB_CHANGE_STEPS=build AB_TESTS='KVCacheCuda.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op decode" timeout 230 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
FLASHATTN_GPU_TIER=quick timeout 40 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='KVCacheCuda.PageSizesAndEdgeLengthsMatchOracle' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_memcheck.log | head -4
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
