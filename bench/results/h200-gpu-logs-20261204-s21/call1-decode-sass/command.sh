#!/usr/bin/env bash
# Session 21 call 1: where B 1 L 1k decode's 24k cycles go. main (96305a5) built for D 128 bf16 with the
# PyTorch binding; ncu --set full at the finest sampling interval (32 cycles) of our decode kernel and of
# cuDNN's (SDPA) on the same shape (Hq 32, Hkv 8, D 128, one token), each exported as per-SASS-instruction
# samples, so the stalls map onto prologue / loop / epilogue / combine and cuDNN's instruction mix is seen.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
export PYTHONPATH=build-gpu/python
for impl in flashattn cudnn; do
  regex=$([[ $impl == flashattn ]] && echo decode || echo 'sdpa|fmha|cudnn|flash|attn')
  timeout 90 ncu --clock-control none --set full --sampling-interval 0 --import-source no -k regex:"$regex" \
    --launch-skip 2 -c 1 -o $L/ncu_$impl python3 bench/decode_once.py --impl $impl --runs 4 > $L/ncu_$impl.log 2>&1
  echo "ncu $impl rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_$impl.ncu-rep --page details > $L/ncu_${impl}_details.txt 2>&1
  ncu -i $L/ncu_$impl.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_${impl}_sass.csv.gz
done
for n in 1 2 4 8 16; do
  echo "num_splits $n:"; timeout 40 python3 bench/decode_once.py --num-splits $n --time 200 2>&1 | tail -4
done
rm -f $L/*.ncu-rep
echo "done at $((SECONDS - t0)) s"
