#!/usr/bin/env bash
# Session 20 call 5 (fresh machine, the session's last device time): A/B of the sm90 backward's double dQ
# staging buffer (change commit in .ab/change_commit) against cb04d79: the backward at D 64 / 128 / 256,
# S 4k / 16k, full and causal, and long-context GQA at S 8k / 32k (two interleaved runs a side, cuDNN after),
# with the change's CudaBackwardSm90 tests (quick tier) while the base builds; then compute-sanitizer
# racecheck and synccheck of the change on the off-tile lengths and the deterministic reruns.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op bwd --seqlens 4096,16384; --op bwd --grid gqa-long --seqlens 8192,32768" \
  timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
for tool in racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.DeterministicRerunsAreBitwiseIdentical' \
    > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_$tool.log | head -4
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
