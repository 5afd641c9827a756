#!/usr/bin/env bash
# Session 35, call 1: session 33's prepared evidence call (../../h200-gpu-logs-20261205-s33/prepared-evidence-grids/),
# with the GPU tests of session 34's two unrun changes first (the packing round rule b7e6589, the gated backward
# sections cdb6692: the packed GQA test, the backward sweep and edge cases at the quick tier, ~25 s), then
# the grids of main as it stands, one build, peers in the same run:
# (1) The backward grid (flashattn, flashattn_det, cuDNN) and the long-context GQA backward grid (issue 5).
# (2) The forward at D 192 / Dv 128 and the short-query GQA grid (the packed tiles) against cuDNN (issue 4:
#     the coverage kernels' first numbers next to a peer).
# (3) racecheck and memcheck of the backward on quick-tier tests, with what is left.
# Prepare: main with the kept candidates committed, then git rev-parse HEAD > .commit (peers.py and the build
# read it); carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 585).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
export FLASHATTN_HEAD_DIMS="64;128;192;256" FLASHATTN_DTYPES=bf16 FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90"
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build torch" timeout 260 scripts/gpu "$L/build" | tail -4
echo "build at $((SECONDS - t0)) s"; rm -f "$L/build/build.log"
tests='CudaForwardSm90.GqaPackedTilesMatchOracle:CudaBackwardSm90.SweepMatchesOracle'
tests+=':CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.LengthsOffTileMultiples'
FLASHATTN_GPU_TIER=quick timeout 45 build-gpu/tests/flashattn_tests_gpu --gtest_filter="$tests" > "$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" "$L/tests.log"
peers() {  # log name, limit, peers.py arguments
  local name=$1 limit=$2; shift 2
  PYTHONPATH=build-gpu/python timeout "$limit" python3 bench/peers.py --json "$L/$name.json" "$@" > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - t0)) s"
}
peers bwd 110 --op bwd --impls flashattn,flashattn_det,cudnn
peers bwd_gqa_long 80 --op bwd --grid gqa-long --impls flashattn,cudnn
peers fwd_d192 40 --op fwd --head-dims 192:128 --impls flashattn,cudnn
peers fwd_gqa_short 40 --op fwd --grid gqa-short --impls flashattn,cudnn
for n in bwd bwd_gqa_long fwd_d192 fwd_gqa_short; do sed -n '/^ceilings/,$p' "$L/$n.log" | head -40; done
san() {  # tool, gtest filter, limit: scripts/gpu's sanitizer step on this build
  FLASHATTN_GPU_STEPS=$1 FLASHATTN_SANITIZER_FILTER=$2 FLASHATTN_SANITIZER_TIMEOUT=$3 scripts/gpu "$L/$1" | tail -2
  echo "$1 at $((SECONDS - t0)) s"
}
left=$((560 - SECONDS + t0))
((left > 70)) && san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 30
left=$((560 - SECONDS + t0))
((left > 50)) && san memcheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.ShortQueries*' $((left - 10))
echo "done at $((SECONDS - t0)) s"
