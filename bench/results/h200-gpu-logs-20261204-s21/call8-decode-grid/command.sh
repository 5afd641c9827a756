#!/usr/bin/env bash
# Session 21 call 8 (fresh machine): call 7 again with the one-CTA-per-SM rule for dense caches only
# (paged caches split as before; commit in FLASHATTN_COMMIT below), D 128 bf16 with the PyTorch binding: the KVCacheCuda tests
# (quick tier), then bench/peers.py --op decode (Hq 32, Hkv 8, D 128, bf16; flashattn dense and paged 16,
# cuDNN, FA2 in one process, 2 ms host lead), and a second run of flashattn and cuDNN for the noise.
set -uo pipefail
export FLASHATTN_COMMIT=654814f
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
FLASHATTN_GPU_TIER=quick timeout 60 build-gpu/tests/flashattn_tests_gpu --gtest_filter='KVCacheCuda.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $L/tests.log | head
export PYTHONPATH=build-gpu/python
P="python3 bench/peers.py --host-lead-us 2000 --op decode"
timeout 120 $P --impls flashattn,cudnn,fa2 --json $OUT/h200-decode-20261204-s21.json > $L/decode.log 2>&1
echo "decode rc=$? at $((SECONDS - t0)) s"
((SECONDS - t0 < 300)) && timeout 90 $P --impls flashattn,cudnn --json $L/decode_run2.json > $L/decode_run2.log 2>&1
echo "decode run 2 rc=$? at $((SECONDS - t0)) s"
