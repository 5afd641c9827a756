#!/usr/bin/env bash
# Prepared in session 30 (no machine was lent): not yet run.
# The sm90 forward's D 192 / Dv 128 kernel (05bd6a5, reverted on main until this has passed) on the H200:
# (1) build the D 192 kernels (fwd sm90 with the pair, fwd / bwd sm80, decode), both dtypes, and the torch
#     binding; ptxas lines of the pair's kernel;
# (2) CudaForwardSm90.* at the quick tier: the pair's own test (HeadDimPairsMatchOracle: partial tiles,
#     causal strided GQA, varlen with empty sequences and seqused_k, window + softcap + ALiBi, a batch with no
#     key, 160 heads in pairs; RunInfo; reruns bitwise) and the D 192 kernel's sweep as the regression check;
# (3) the Python test of the pair (CPU forward + backward, CUDA forward against float64, the backward
#     refused naming v);
# (4) memcheck, racecheck and synccheck on the pair's test.
# Prepare on main, from the repository root: git cherry-pick 05bd6a5 (this runs over the working tree).
# Carry ["third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_HEAD_DIMS=192 FLASHATTN_DTYPES="fp16;bf16" FLASHATTN_GPU_STEPS="build torch" scripts/gpu $L/build | tail -4
grep -E "Compiling entry.*Li192ELi128E" -A 2 $L/build/build.log | head -6
echo "built at $((SECONDS - t0)) s"
FLASHATTN_GPU_TIER=quick timeout 240 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm90.*' \
  > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" $L/tests.log
PYTHONPATH=build-gpu/python timeout 60 python3 -m pytest -q -rA tests/python -k value_head_dim > $L/pytest.log 2>&1
echo "pytest rc=$?"; tail -3 $L/pytest.log
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_TIMEOUT=60 \
    FLASHATTN_SANITIZER_FILTER='CudaForwardSm90.HeadDimPairsMatchOracle' scripts/gpu $L/$tool | tail -1
done
echo "done at $((SECONDS - t0)) s"
