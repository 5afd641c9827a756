#!/usr/bin/env bash
# Session 20 call 1 (fresh machine): A/B of ac1f587 + 95e9474 against b340d8f: the forward's idle consumer
# warpgroups (D 64 forward grid, full and causal, S 512-16k) and the backward's descending query-block walk
# (backward GQA-long S 8k / 32k; D 64 and D 128 at S 4k / 16k, full and causal), with the change's
# CudaForwardSm90 tests (full tier: the partial-last-tile cases) while the base builds; then the change's
# CudaBackwardSm90 tests (quick tier) and compute-sanitizer memcheck / racecheck / synccheck on the CLI's
# verified bench of the partial-tile shapes (D 64 causal, S 1060 and 1200: one and two idle warpgroups).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128" AB_CHANGE_STEPS=build AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--head-dims 64; --op bwd --grid gqa-long --seqlens 8192,32768; --op bwd --head-dims 64,128 --seqlens 4096,16384" \
  timeout 420 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
FLASHATTN_GPU_TIER=quick timeout 60 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaBackwardSm90.*' \
  > $L/tests_bwd_quick.log 2>&1
echo "bwd tests rc=$? at $((SECONDS - t0)) s"; grep -E "PASSED|FAILED|tests," $L/tests_bwd_quick.log | head
for tool in memcheck racecheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool build-gpu/flashattn bench --backend cuda --head-dim 64 --causal \
    --heads 2 --heads-kv 1 --seqlen-q 1060,1200 --samples 1 --warmup 0 > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|error" $L/sanitizer_$tool.log | head -3
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
