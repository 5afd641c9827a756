#!/usr/bin/env bash
# Session 26 call 5: the kept D 64 backward (products ahead) at the full tier: sm90 only, D 64, bf16 and
# fp16 kernels (scripts/gpu's build step), then CudaBackwardSm90.* with FLASHATTN_GPU_TIER=full (the
# sweep's D 64 cases: every mask kind, GQA ratio, varlen with empty sequences, off-tile lengths).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS=64 FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS=build \
  timeout 150 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -3 $L/gpu.log
FLASHATTN_GPU_TIER=full timeout $((255 - (SECONDS - t0))) build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.*' > $L/tests_full.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|OK \]" $L/tests_full.log | head -14
rm -f $L/gpu/build.log
echo "done at $((SECONDS - t0)) s"
