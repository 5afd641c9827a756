#!/usr/bin/env bash
# Session 10 call 3: 967c9e0 (the split cost model, cluster gating), every kernel for 90a with the torch
# binding: pytest; the KVCache tests at the full tier (split counts, page sizes, workspace); the split
# sweep's automatic choice over session 10's grid; the decode grid against cuDNN and FA2 (dense and paged
# 16, same process); then the e2e serving workload with 2k prompts at concurrency 1/8/32 (a report part).
set -uo pipefail
export FLASHATTN_COMMIT=967c9e0 FLASHATTN_CUDA_ARCHS=90a
L=$OUT/logs; mkdir -p $L
FLASHATTN_GPU_STEPS="build pytest" timeout 200 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
tail -4 $L/build_summary.log; tail -1 $L/build/pytest.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 60 $T --gtest_filter='KVCacheCuda.SplitCounts*:KVCacheCuda.CallerWorkspace:KVCacheCuda.PageSizes*' \
  > $L/tests_kvcache.log 2>&1; echo "kvcache rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests_kvcache.log
B=build-gpu
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 60 python3 bench/decode_splits.py --json $OUT/decode_splits_auto.json \
  --batches 1,2,4,8,16,32 --lengths 1024,4096,16384,65536 --splits 0 --samples 30 \
  > $L/decode_splits_auto.log 2>&1; echo "splits rc=$?"; cat $L/decode_splits_auto.log
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 100 python3 bench/peers.py --op decode --impls flashattn,cudnn,fa2 \
  --json $OUT/peers_decode.json > $L/peers_decode.log 2>&1; echo "decode rc=$?"; tail -18 $L/peers_decode.log
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 150 python3 bench/e2e/report.py run --workloads serving \
  --serve-args "--prompts 2048 --concurrency 1,8,32 --repeats 2" --json $OUT/e2e-part-serving-2k.json \
  > $L/e2e_serving_2k.log 2>&1; echo "e2e 2k rc=$?"; grep -E "tok/s|FAILED" $L/e2e_serving_2k.log
rm -f $L/build/build.log
