#!/usr/bin/env bash
# Session 18 call 3 (fresh machine): the evidence of HEAD 4ef6f04 (work ring, MUFU lse, first fold without
# rescale): build (bf16 + fp16, D 64 / 128 / 256, with the torch binding), the forward grid against cuDNN (bf16),
# the long-context GQA grid, fp16 at D 128; then ncu --set full of our forward at S 512 (D 64 full, the cell
# furthest from cuDNN; D 256 full, to see the one-Q-buffer tile boundary).
set -uo pipefail
export FLASHATTN_COMMIT=4ef6f04
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS="build torch" \
  timeout 300 scripts/gpu $L/gpu > $L/gpu_summary.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -3 $L/gpu_summary.log
export PYTHONPATH=build-gpu/python; R=$OUT; P="python3 bench/peers.py"
timeout 80 $P --impls flashattn,cudnn --json $R/h200-fwd-20261204-s18.json > $L/fwd.log 2>&1; echo "fwd rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd.log
timeout 45 $P --grid gqa-long --impls flashattn,cudnn --json $R/h200-fwd-20261204-s18-gqa-long.json > $L/gqa.log 2>&1; echo "gqa rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/gqa.log
timeout 35 $P --impls flashattn,cudnn --head-dims 128 --dtype fp16 --json $R/h200-fwd-20261204-s18-fp16.json > $L/fwd_fp16.log 2>&1; echo "fp16 rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd_fp16.log
for f in $R/*.json; do python3 -c "import json,sys; d=json.load(open('$f')); print('$f', len(d['rows']), sum(1 for r in d['rows'] if r.get('verified')))"; done
grep -B2 "spill" $L/gpu/kernels.txt | grep -E "fwd_sm90|spill" | head -20
for d in 64 256; do
  n=ours_d${d}_full_s512
  timeout 80 ncu --clock-control none --set full -k regex:fwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_$n \
    python3 bench/fwd_once.py --impl flashattn --seqlen 512 --head-dim $d > $L/ncu_$n.log 2>&1
  echo "ncu $n rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_$n.ncu-rep --page details > $L/ncu_${n}_details.txt 2>&1
  ncu -i $L/ncu_$n.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_${n}_sass.csv.gz
  grep -E "Duration|Executed Instructions  |Issue Slots Busy" $L/ncu_${n}_details.txt | head -4
  rm -f $L/ncu_$n.ncu-rep
done
rm -rf $L/gpu/build.log
echo "done at $((SECONDS - t0)) s"
