#!/usr/bin/env bash
# Session 5 call 5: verify the harness fix (CallerWorkspace), the backward and KVCache suites on D128, peers decode.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
export FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS="build pytest"
scripts/gpu $L > $L/gpu_summary.log 2>&1; tail -4 $L/gpu_summary.log; rm -f $L/build.log
B=build-gpu; T=$B/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 120 $T --gtest_filter='CudaBackward*:KVCache*:-*LengthsOffTileMultiples*:*ABatchOf60*:*SplitCountsAgree*:*BatchNeighbours*' > $L/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED" $L/tests.log | tail -5
export PYTHONPATH=$B/python PYTHONUNBUFFERED=1
timeout 100 python3 bench/peers.py --op decode --grid decode --impls flashattn,cudnn --json $OUT/peers_decode.json > $L/peers_decode.log 2>&1; echo "peers decode rc=$?"
