#!/usr/bin/env bash
# Session 24 call 4 (fresh machine): main (commit in .ab/change_commit) with deterministic causal runs taking
# dQ turns in descending key block (CTAs started in descending key block). D 64 / 128 / 256, bf16, torch
# binding. CudaBackwardSm90.* at the quick tier (deterministic runs against the oracle and 50 bitwise reruns,
# causal dense and varlen); memcheck of the deterministic test; then the causal backward grid and the
# long-context GQA grid with flashattn and flashattn_det in one process (call 3 measured them before).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 240 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
FLASHATTN_GPU_TIER=quick timeout 150 build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|OK \]" $L/tests.log | head -14
FLASHATTN_GPU_TIER=quick timeout 90 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.Deterministic*' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_memcheck.log | head -4
export PYTHONPATH=build-gpu/python
P="python3 bench/peers.py --host-lead-us 2000"
timeout 90 $P --op bwd --impls flashattn,flashattn_det --masks causal --head-dims 128,64,256 \
  --json $L/h200-bwd-det-causal-20261204-s24.json > $L/peers_bwd_det.log 2>&1
echo "bwd det rc=$? at $((SECONDS - t0)) s"; tail -20 $L/peers_bwd_det.log
timeout 60 $P --op bwd --grid gqa-long --impls flashattn,flashattn_det \
  --json $L/h200-bwd-det-gqa-long-20261204-s24.json > $L/peers_bwd_det_gqa.log 2>&1
echo "bwd det gqa rc=$? at $((SECONDS - t0)) s"; tail -8 $L/peers_bwd_det_gqa.log
echo "done at $((SECONDS - t0)) s"
