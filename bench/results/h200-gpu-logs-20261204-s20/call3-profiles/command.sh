#!/usr/bin/env bash
# Session 20 call 3 (fresh machine): profiles for the next changes, no code change. main (a2d41b3) built for
# D 64 / 128, bf16; ncu --set full (natural clock) of the sm90 backward at S 16k, full, D 64 and D 128 (B 1,
# H 2048 / D), exported as details and per-SASS-instruction samples; then the decode step at B 1, L 1k (Hq 32,
# Hkv 8, D 128) for ours and cuDNN: timings (decode_once --time) and ncu --set full of each one's kernels.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 260 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
for d in 64 128; do
  timeout 70 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_bwd$d \
    build-gpu/flashattn bench --backend cuda --op bwd --batch 1 --heads $((2048 / d)) --seqlen-q 16384 \
    --head-dim $d --samples 2 --warmup 1 --quiet > $L/ncu_bwd$d.log 2>&1
  echo "ncu bwd $d rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_bwd$d.ncu-rep --page details > $L/ncu_bwd${d}_details.txt 2>&1
  ncu -i $L/ncu_bwd$d.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_bwd${d}_sass.csv.gz
done
export PYTHONPATH=build-gpu/python
for impl in flashattn cudnn; do
  timeout 60 python3 bench/decode_once.py --impl $impl --time 200 > $L/decode_time_$impl.log 2>&1
  echo "decode time $impl rc=$? at $((SECONDS - t0)) s"; cat $L/decode_time_$impl.log
done
timeout 60 ncu --clock-control none --set full -k regex:decode --launch-skip 2 -c 2 -o $L/ncu_decode_ours \
  python3 bench/decode_once.py --runs 4 > $L/ncu_decode_ours.log 2>&1
echo "ncu decode ours rc=$? at $((SECONDS - t0)) s"
timeout 60 ncu --clock-control none --set full -k regex:'sdpa|fmha|cudnn|flash|attn' --launch-skip 2 -c 2 \
  -o $L/ncu_decode_cudnn python3 bench/decode_once.py --impl cudnn --runs 4 > $L/ncu_decode_cudnn.log 2>&1
echo "ncu decode cudnn rc=$? at $((SECONDS - t0)) s"
for n in decode_ours decode_cudnn; do
  ncu -i $L/ncu_$n.ncu-rep --page details > $L/ncu_${n}_details.txt 2>&1
done
grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Executed Ipc A|Block Size|Grid Size|Cluster Size" \
  $L/ncu_decode_*_details.txt | head -40
rm -f $L/*.ncu-rep
echo "done at $((SECONDS - t0)) s"
