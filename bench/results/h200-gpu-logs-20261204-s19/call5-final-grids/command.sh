#!/usr/bin/env bash
# Session 19 call 5 (fresh machine): the evidence of HEAD (L2-sectioned longest-first order, D 64 three Q
# buffers and its 128x128 tile up to 1024 keys): build (bf16 + fp16, D 64 / 128 / 256, torch binding), the
# sm90 forward tests (quick tier), the forward grid against cuDNN (bf16), long-context GQA, fp16 at D 128;
# then the backward's long-context GQA grid (unchanged kernels; last measured to S 32k in session 14).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS="build torch" \
  timeout 220 scripts/gpu $L/gpu > $L/gpu_summary.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -3 $L/gpu_summary.log
FLASHATTN_GPU_TIER=quick timeout 60 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm90.*' > $L/tests_fwd_sm90.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; tail -2 $L/tests_fwd_sm90.log
export PYTHONPATH=build-gpu/python; R=$OUT; P="python3 bench/peers.py"
timeout 80 $P --impls flashattn,cudnn --json $R/h200-fwd-20261204-s19-final.json > $L/fwd.log 2>&1; echo "fwd rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd.log
timeout 45 $P --grid gqa-long --impls flashattn,cudnn --json $R/h200-fwd-20261204-s19-gqa-long.json > $L/gqa.log 2>&1; echo "gqa rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/gqa.log
timeout 35 $P --impls flashattn,cudnn --head-dims 128 --dtype fp16 --json $R/h200-fwd-20261204-s19-fp16.json > $L/fwd_fp16.log 2>&1; echo "fp16 rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd_fp16.log
timeout 110 $P --op bwd --grid gqa-long --impls flashattn,cudnn --json $R/h200-bwd-20261204-s19-gqa-long.json > $L/bwd_gqa.log 2>&1; echo "bwd gqa rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/bwd_gqa.log
for f in $R/*.json; do python3 -c "import json,sys; d=json.load(open('$f')); print('$f', len(d['rows']), sum(1 for r in d['rows'] if r.get('verified')))"; done
awk '/spill/{s=s" "$5"/"$9} /compiled (fwd|bwd)_sm90/{print $3, s} /compiled/{s=""}' $L/gpu/kernels.txt | head -20
rm -rf $L/gpu/build.log
echo "done at $((SECONDS - t0)) s"
