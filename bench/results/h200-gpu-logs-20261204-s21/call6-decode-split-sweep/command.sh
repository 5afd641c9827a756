#!/usr/bin/env bash
# Session 21 call 6 (fresh machine): the split sweep the heuristic is refitted to, on the kernel of calls 3-4
# (cheaper cluster combine). main at the change commit, D 128 bf16 with the PyTorch binding;
# bench/decode_splits.py (peers.py's timing: L2 flush, host lead, graph replay; 50 samples), dense cache,
# B 1 / 4 / 16 x L 1k / 8k / 32k / 128k x 13 split counts, and B 64 x L 1k / 8k / 32k x 1 / 2 / 4.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
timeout 200 python3 bench/decode_splits.py --json $L/decode_splits_b1_16.json --batches 1,4,16 \
  --lengths 1024,8192,32768,131072 --splits 0,1,2,3,4,6,8,12,16,24,32,48,64 > $L/decode_splits_b1_16.log 2>&1
echo "sweep B 1-16 rc=$? at $((SECONDS - t0)) s"
timeout 80 python3 bench/decode_splits.py --json $L/decode_splits_b64.json --batches 64 \
  --lengths 1024,8192,32768 --splits 0,1,2,4 > $L/decode_splits_b64.log 2>&1
echo "sweep B 64 rc=$? at $((SECONDS - t0)) s"
echo "done at $((SECONDS - t0)) s"
