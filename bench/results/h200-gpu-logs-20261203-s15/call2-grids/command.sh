#!/usr/bin/env bash
# Session 15 call 2 (fresh machine): build b7cc073 (D 64/128/256, bf16 and fp16, 90a, with the torch binding),
# the forward tests (the D 256 tile-choice test new) and memcheck on it, then the grids of this build with a
# 2 ms host lead: the forward grid (flashattn and cuDNN in one process), fp16 at D 128, the long-context GQA
# forward grid, the portable path against FlashAttention-2 (each in processes of its own, alternated twice),
# and the decode grid (flashattn dense and paged 16, cuDNN, FA2).
set -uo pipefail
export FLASHATTN_COMMIT=b7cc073
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS="build torch"   timeout 330 scripts/gpu $L/gpu > $L/gpu_summary.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -4 $L/gpu_summary.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 60 $T --gtest_filter='CudaForwardSm90.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests.log | head -20
FLASHATTN_GPU_TIER=quick timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 $T   --gtest_filter='CudaForwardSm90.HeadDim256*' > $L/memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -n 1 $L/memcheck.log
export PYTHONPATH=build-gpu/python
R=$OUT; P="python3 bench/peers.py --host-lead-us 2000"
timeout 70 $P --impls flashattn,cudnn --json $R/h200-fwd-20261203-s15.json > $L/fwd.log 2>&1; echo "fwd rc=$? at $((SECONDS - t0)) s"
timeout 30 $P --impls flashattn,cudnn --head-dims 128 --dtype fp16 --json $R/h200-fwd-20261203-s15-fp16.json > $L/fwd_fp16.log 2>&1; echo "fp16 rc=$? at $((SECONDS - t0)) s"
timeout 40 $P --grid gqa-long --impls flashattn,cudnn --json $R/h200-fwd-20261203-s15-gqa-long.json > $L/gqa.log 2>&1; echo "gqa rc=$? at $((SECONDS - t0)) s"
for r in 1 2; do
  timeout 35 $P --impls flashattn --path portable --json $L/portable_flashattn_$r.json > $L/portable_flashattn_$r.log 2>&1
  timeout 35 $P --impls fa2 --path portable --json $L/portable_fa2_$r.json > $L/portable_fa2_$r.log 2>&1
done
echo "portable done at $((SECONDS - t0)) s"
python3 bench/ab_compare.py --a $L/portable_flashattn_*.json --b $L/portable_fa2_*.json --b-impl fa2 --peer fa2 | tee $L/portable_ab.txt
((SECONDS - t0 < 470)) && timeout 100 $P --op decode --impls flashattn,cudnn,fa2 --json $R/h200-decode-20261203-s15.json > $L/decode.log 2>&1
echo "decode rc=$? at $((SECONDS - t0)) s"
for f in $R/*.json; do python3 -c "import json,sys; d=json.load(open('$f')); print('$f', len(d['rows']), sum(1 for r in d['rows'] if r.get('verified')))"; done
