#!/usr/bin/env bash
# Prepared in session 30 (no machine was lent): not yet run.
# The D 192 / Dv 128 kernels (4b9d252: sm90 forward, sm80 forward, sm80 backward; reverted on main until
# this has passed) on the H200:
# (1) build the D 192 kernels (with the pair's), both dtypes, and the torch binding;
# (2) at the quick tier: CudaForwardSm90.* (the pair's HeadDimPairsMatchOracle: partial tiles, causal strided
#     GQA, varlen with empty sequences and seqused_k, window + softcap + ALiBi, a batch with no key, 160 heads
#     in pairs; RunInfo; reruns bitwise; and D 192's own sweep as the regression check), and the portable
#     forward's and backward's HeadDimPairsMatchOracle (forced portable path; the backward's reruns within
#     rounding);
# (3) the Python test of the pair (CPU and CUDA forward and gradients against float64);
# (4) the pair on the paper grid against cuDNN and FA2 (bench/peers.py --head-dims 192:128), forward and backward;
# (5) memcheck, racecheck and synccheck on the three pair tests.
# Prepare on main, from the repository root: git cherry-pick 4b9d252 (this runs over the working tree).
# Carry ["third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 590; estimated ~520 s: build ~120, tests ~120, pytest ~10, peers ~90, sanitizers 3 x <= 60).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_HEAD_DIMS=192 FLASHATTN_DTYPES="fp16;bf16" FLASHATTN_GPU_STEPS="build torch" scripts/gpu $L/build | tail -4
grep -E "Li192ELi128E" -A 2 $L/build/build.log | grep -E "entry|spill|registers" | head -12
echo "built at $((SECONDS - t0)) s"
pairs='CudaForwardSm80.HeadDimPairsMatchOracle:CudaBackwardSm80.HeadDimPairsMatchOracle:CudaForwardSm90.HeadDimPairsMatchOracle'
FLASHATTN_GPU_TIER=quick timeout 300 build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter="CudaForwardSm90.*:$pairs" > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" $L/tests.log
PYTHONPATH=build-gpu/python timeout 90 python3 -m pytest -q -rA tests/python -k value_head_dim > $L/pytest.log 2>&1
echo "pytest rc=$?"; tail -3 $L/pytest.log
# First numbers of the pair on the paper grid (B*S 16k, H = 2048 / 128 = 16), against the peers in the same run.
for op in fwd bwd; do
  PYTHONPATH=build-gpu/python timeout 120 python3 bench/peers.py --op $op --head-dims 192:128 \
    --impls flashattn,cudnn,fa2 --json $L/peers_${op}_192_128.json > $L/peers_${op}_192_128.log 2>&1
  echo "peers $op rc=$? at $((SECONDS - t0)) s"; tail -14 $L/peers_${op}_192_128.log
done
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_TIMEOUT=60 FLASHATTN_SANITIZER_FILTER="$pairs" \
    scripts/gpu $L/$tool | tail -1
done
echo "done at $((SECONDS - t0)) s"
