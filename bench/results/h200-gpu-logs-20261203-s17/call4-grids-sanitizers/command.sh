#!/usr/bin/env bash
# Session 17 call 4 (fresh machine): the evidence of the V-box change (HEAD): build (bf16 + fp16, D 64 / 128 /
# 256, with the torch binding), the forward grid against cuDNN (bf16), fp16 at D 128, the long-context GQA
# grid, then the Hopper forward sweep under compute-sanitizer memcheck, racecheck and synccheck (quick tier)
# and the far-batch-entry test.
set -uo pipefail
export FLASHATTN_COMMIT=12cde5b  # the code of HEAD (later commits add logs only)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS="build torch" \
  timeout 300 scripts/gpu $L/gpu > $L/gpu_summary.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -3 $L/gpu_summary.log
export PYTHONPATH=build-gpu/python; R=$OUT; P="python3 bench/peers.py"
timeout 80 $P --impls flashattn,cudnn --json $R/h200-fwd-20261203-s17.json > $L/fwd.log 2>&1; echo "fwd rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd.log
timeout 45 $P --grid gqa-long --impls flashattn,cudnn --json $R/h200-fwd-20261203-s17-gqa-long.json > $L/gqa.log 2>&1; echo "gqa rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/gqa.log
timeout 35 $P --impls flashattn,cudnn --head-dims 128 --dtype fp16 --json $R/h200-fwd-20261203-s17-fp16.json > $L/fwd_fp16.log 2>&1; echo "fp16 rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd_fp16.log
for f in $R/*.json; do python3 -c "import json,sys; d=json.load(open('$f')); print('$f', len(d['rows']), sum(1 for r in d['rows'] if r.get('verified')))"; done
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 30 $T --gtest_filter='CudaOffsets64Bit.Hopper*' > $L/offsets.log 2>&1; echo "offsets rc=$? at $((SECONDS - t0)) s"
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 75 compute-sanitizer --tool $tool --error-exitcode 1 $T \
    --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; tail -3 $L/$tool.log
done
rm -rf $L/gpu/build.log
echo "done at $((SECONDS - t0)) s"
