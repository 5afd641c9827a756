#!/usr/bin/env bash
# Session 5 call 3: sm90 backward v2 measured: build bf16 D64/128/256 with torch, bwd tests, pytest, peers bwd paper + gqa-long.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
export FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16" FLASHATTN_GPU_STEPS="build pytest"
scripts/gpu $L > $L/gpu_summary.log 2>&1; tail -5 $L/gpu_summary.log; rm -f $L/build.log
B=build-gpu; T=$B/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 60 $T --gtest_filter='CudaBackwardSm90.*:-*LengthsOffTileMultiples*' > $L/tests_bwd90.log 2>&1; echo "tests rc=$?"; tail -2 $L/tests_bwd90.log
export PYTHONPATH=$B/python PYTHONUNBUFFERED=1
timeout 230 python3 bench/peers.py --op bwd --json $OUT/peers_bwd.json > $L/peers_bwd.log 2>&1; echo "peers rc=$?"
timeout 120 python3 bench/peers.py --op bwd --grid gqa-long --impls flashattn,cudnn --json $OUT/peers_bwd_gqa.json > $L/peers_bwd_gqa.log 2>&1; echo "peers gqa rc=$?"
