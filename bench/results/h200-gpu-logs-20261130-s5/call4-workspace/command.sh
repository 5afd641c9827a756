#!/usr/bin/env bash
# Session 5 call 4: caller workspace + bwd v2: build D64/128/256 bf16+fp16 with torch, tests, pytest, peers bwd, decode timing.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
export FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS="build pytest"
scripts/gpu $L > $L/gpu_summary.log 2>&1; tail -5 $L/gpu_summary.log; rm -f $L/build.log
B=build-gpu; T=$B/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 150 $T --gtest_filter='CudaBackward*:*CallerWorkspace*:-*LengthsOffTileMultiples*:*ABatchOf60*' > $L/tests_bwd.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED" $L/tests_bwd.log | tail -5
export PYTHONPATH=$B/python PYTHONUNBUFFERED=1
timeout 200 python3 bench/peers.py --op bwd --json $OUT/peers_bwd.json > $L/peers_bwd.log 2>&1; echo "peers rc=$?"
timeout 90 python3 bench/peers.py --op bwd --grid gqa-long --impls flashattn,cudnn --json $OUT/peers_bwd_gqa.json > $L/peers_bwd_gqa.log 2>&1; echo "peers gqa rc=$?"
timeout 30 python3 bench/decode_once.py --batch 64 --length 32768 --time 20 > $L/decode_once.log 2>&1; echo "decode rc=$?"; cat $L/decode_once.log
