#!/usr/bin/env bash
# Prepared for the next session's first call (not run in session 49). On an H200 (~510 s): session 47's call 3
# (issue 6's decode grid with flashattn and cuDNN alone, then issues 4 and 5's GQA-long and D 128 grids against
# cuDNN). On any other GPU (~120 s): where the 256-CTA decode cells lose their 4-6 us (session 49: the decode
# kernels read the cache at cuDNN's rate; replayed back to back, ours spent 5.4-5.9 us beyond its decode kernel
# at B 1 L 128k with 33 splits, cuDNN 1.0-1.8). ncu with --cache-control none, so that the split partials the
# decode kernel wrote are still in L2 when the combine reads them, as in a real call: the duration of our
# combine and of cuDNN's lean_reduction_kernel at B 1 L 128k (32 splits) and B 4 L 32k (8), warm; then B 1 L 1k
# timed at 4-16 splits (the cluster path) against cuDNN.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 120
export PYTHONPATH=build-gpu/python
for shape in "1 131072" "4 32768"; do
  read -r b len <<<"$shape"
  for impl in flashattn cudnn; do
    timeout 30 ncu --clock-control none --cache-control none --section SpeedOfLight --section LaunchStats \
      --launch-skip 2 -c 3 -k regex:'decode|sdpa|lean|reduction' -o "$L/ncu_${impl}_b$b" \
      python3 bench/decode_once.py --impl "$impl" --batch "$b" --length "$len" --runs 3 >"$L/ncu_${impl}_b$b.log" 2>&1
    echo "ncu $impl B $b rc=$? at $((SECONDS - device_t0)) s"
    ncu -i "$L/ncu_${impl}_b$b.ncu-rep" --page details >"$L/ncu_${impl}_b${b}_details.txt" 2>&1
  done
done
grep -E "^  [a-zA-Z_].*\(|Duration|SM Active Cycles|DRAM Throughput" "$L"/ncu_*_details.txt | head -60
rm -f "$L"/*.ncu-rep
# B 1 L 1k (0.968x cuDNN on the H100 in call 6: 11.6 us against 11.3) at the cluster path's split counts.
for s in 8 4 6 12 16 8; do
  echo "== B 1 L 1k, $s splits: $(timeout 30 python3 bench/decode_once.py --batch 1 --length 1024 --num-splits $s \
    --time 100 2>&1 | grep -E 'cluster_size|peers.time' | sed 's/.*cluster_size.: \([0-9]*\).*/cluster \1/' | tr '\n' ' ')"
done
echo "== cudnn B 1 L 1k: $(timeout 30 python3 bench/decode_once.py --impl cudnn --batch 1 --length 1024 --time 100 2>&1 |
  grep -E 'peers.time')"
echo "done at $((SECONDS - device_t0)) s"
