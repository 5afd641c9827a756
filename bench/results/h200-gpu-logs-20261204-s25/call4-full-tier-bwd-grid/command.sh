#!/usr/bin/env bash
# Session 25 call 4 (the machine of call 3, whose build-gpu of 2e43992 it reuses: D 64 / 128 / 256, bf16,
# torch binding): CudaBackwardSm90.* at the full tier; memcheck of the off-tile-lengths test; the backward
# grid with flashattn, flashattn_det and cuDNN in one process.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_GPU_TIER=full timeout 230 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaBackwardSm90.*' \
  > $L/tests_full.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|OK \]" $L/tests_full.log | head -14
export PYTHONPATH=build-gpu/python
timeout 200 python3 bench/peers.py --host-lead-us 2000 --op bwd --impls flashattn,flashattn_det,cudnn \
  --head-dims 128,64,256 --json $L/h200-bwd-20261204-s25.json > $L/peers_bwd.log 2>&1
echo "bwd grid rc=$? at $((SECONDS - t0)) s"; tail -42 $L/peers_bwd.log
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_memcheck.log | head -4
echo "done at $((SECONDS - t0)) s"
