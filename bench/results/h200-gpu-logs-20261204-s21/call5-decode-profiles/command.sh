#!/usr/bin/env bash
# Session 21 call 5 (fresh machine): where the cells still below cuDNN go, after calls 3-4's changes (main
# at the change commit, D 128 bf16 with the PyTorch binding). Split counts at B 1 (and B 4 L 32k) timed
# against the heuristic's (decode_once, peers.py's timing); ncu --set full with per-SASS samples every 32
# cycles of ours at B 64 L 1k (one split, 512 CTAs) and B 1 L 32k (32 splits + combine kernel), and of
# cuDNN's kernels on the same shapes (details only: launch configuration, duration, stalls); every kernel
# of cuDNN's B 1 L 1k call listed.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
export PYTHONPATH=build-gpu/python
for cell in "1 8192 0" "1 8192 8" "1 32768 0" "1 32768 16" "1 32768 64" "1 131072 0" "1 131072 16" "1 131072 64" \
            "4 32768 0" "4 32768 16" "16 1024 0" "16 1024 1" "64 1024 0" "64 1024 2"; do
  set -- $cell
  echo "B $1 L $2 num_splits $3: $(timeout 30 python3 bench/decode_once.py --batch $1 --length $2 --num-splits $3 --time 100 2>&1 | grep -E "num_splits|peers" | sed -E "s/.*'num_ctas': ([0-9]+), 'num_splits': ([0-9]+), 'cluster_size': ([0-9]+).*/ctas \1 splits \2 cluster \3/" | tr '\n' ' ')"
done
echo "timings at $((SECONDS - t0)) s"
for cell in "64 1024" "1 32768"; do
  set -- $cell
  timeout 60 ncu --clock-control none --set full --warp-sampling-interval 0 --import-source no -k regex:decode \
    --launch-skip 2 -c 1 -o $L/ncu_ours_b$1_l$2 python3 bench/decode_once.py --batch $1 --length $2 --runs 4 > $L/ncu_ours_b$1_l$2.log 2>&1
  ncu -i $L/ncu_ours_b$1_l$2.ncu-rep --page details > $L/ncu_ours_b$1_l$2_details.txt 2>&1
  ncu -i $L/ncu_ours_b$1_l$2.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_ours_b$1_l$2_sass.csv.gz
  timeout 60 ncu --clock-control none --set full -k regex:'sdpa|fmha|cudnn|flash|attn' --launch-skip 2 -c 2 \
    -o $L/ncu_cudnn_b$1_l$2 python3 bench/decode_once.py --impl cudnn --batch $1 --length $2 --runs 4 > $L/ncu_cudnn_b$1_l$2.log 2>&1
  ncu -i $L/ncu_cudnn_b$1_l$2.ncu-rep --page details > $L/ncu_cudnn_b$1_l$2_details.txt 2>&1
  echo "ncu B $1 L $2 at $((SECONDS - t0)) s"
done
# Every kernel cuDNN's SDPA call launches (B 1 L 1k), to see whether it runs a second (combine) kernel.
timeout 60 ncu --clock-control none --section LaunchStats --section SpeedOfLight -c 40 \
  python3 bench/decode_once.py --impl cudnn --runs 6 > $L/ncu_cudnn_all_kernels.txt 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration" $L/ncu_cudnn_all_kernels.txt | tail -16
grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Block Size|Grid Size|Cluster Size|Warp Cycles Per Issued|Dynamic Shared" $L/ncu_*_details.txt | cut -c1-200
rm -f $L/*.ncu-rep
echo "done at $((SECONDS - t0)) s"
