#!/usr/bin/env bash
# Session 46, call 6 (any 132-SM GPU, ~130 s; the session's last 217 s of device time): correctness only of
# f996a82, the backward key-block pairs with the consumers' Q / dO release mended (call 5: "unspecified
# launch failure", synccheck "missing wait" at the pipeline's consumer release, which arrived at cluster
# rank 0's barrier). Builds D 128 bf16 (fwd_sm90, bwd_sm90) in the working tree, runs the pairs' test and
# the backward sweep, then memcheck, synccheck and racecheck of the pairs' test while time is left.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
export FLASHATTN_HEAD_DIMS=128 FLASHATTN_DTYPES=bf16 FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90" \
  FLASHATTN_CUDA_ARCHS=90a
FLASHATTN_GPU_STEPS=build scripts/gpu "$L/build" | tail -2
timeout 40 build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.KeyBlockPairsSumTheirDq:CudaBackwardSm90.SweepMatchesOracle' >"$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - device_t0)) s"
grep -E "^\[ +(OK|FAILED) +\]|Failure|status|cluster_size" "$L/tests.log" | head -20
for tool in memcheck synccheck racecheck; do
  left=$((170 - SECONDS + device_t0))
  ((left > 15)) || break
  FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_FILTER='CudaBackwardSm90.KeyBlockPairsSumTheirDq' \
    FLASHATTN_SANITIZER_TIMEOUT=$((left > 40 ? 35 : left - 5)) scripts/gpu "$L/$tool" | tail -1
done
echo "done at $((SECONDS - device_t0)) s"
