#!/usr/bin/env bash
# Session 10 call 1: main (FLASHATTN_COMMIT) with every kernel for 90a and the torch binding. First GPU run
# of the decode cluster combine (5def750): the KVCache tests at the full tier, memcheck/racecheck/synccheck
# over the split-count test; the split sweep (bench/decode_splits.py, dense, B 1/4/16 x L 1k/8k/32k) and the
# decode grid against cuDNN and FA2 (peers.py --op decode, dense and paged 16, same process).
set -uo pipefail
export FLASHATTN_COMMIT=e523903 FLASHATTN_CUDA_ARCHS=90a
L=$OUT/logs; mkdir -p $L
FLASHATTN_GPU_STEPS="build pytest" timeout 200 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
tail -4 $L/build_summary.log; tail -1 $L/build/pytest.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 80 $T --gtest_filter='KVCacheCuda.*' > $L/tests_kvcache_full.log 2>&1
echo "kvcache full rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $L/tests_kvcache_full.log
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 50 compute-sanitizer --tool $tool --error-exitcode 1 \
    $T --gtest_filter='KVCacheCuda.SplitCountsAgreeWithinRounding' > $L/${tool}_kv.log 2>&1
  echo "$tool rc=$?"; tail -1 $L/${tool}_kv.log
done
B=build-gpu
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 100 python3 bench/decode_splits.py --json $OUT/decode_splits.json \
  > $L/decode_splits.log 2>&1; echo "splits rc=$?"; cat $L/decode_splits.log | tail -70
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 130 python3 bench/peers.py --op decode --impls flashattn,cudnn,fa2 \
  --json $OUT/peers_decode.json > $L/peers_decode.log 2>&1; echo "decode rc=$?"; tail -22 $L/peers_decode.log
rm -f $L/build/build.log
