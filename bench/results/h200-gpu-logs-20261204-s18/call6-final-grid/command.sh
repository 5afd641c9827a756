#!/usr/bin/env bash
# Session 18 call 6 (fresh machine, the session's last device time): the forward grid of HEAD 2e844e8 (D 256's O
# staged in the rings; D 64 / 128 unchanged since 4ef6f04, whose GQA-long and fp16 grids are call 3's), bf16,
# flashattn and cuDNN in one process.
set -uo pipefail
export FLASHATTN_COMMIT=2e844e8
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16" FLASHATTN_GPU_STEPS="build torch" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu_summary.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -3 $L/gpu_summary.log
export PYTHONPATH=build-gpu/python; R=$OUT; P="python3 bench/peers.py"
timeout 80 $P --impls flashattn,cudnn --json $R/h200-fwd-20261204-s18-final.json > $L/fwd.log 2>&1; echo "fwd rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd.log
grep -B2 "spill" $L/gpu/kernels.txt | grep -E "fwd_sm90|spill" | head -12
rm -rf $L/gpu/build.log
echo "done at $((SECONDS - t0)) s"
