#!/usr/bin/env bash
# Session 48, call 2 (~250 s of the 520 left). On an H200: session 47's call 4 (issue 6's decode grid with
# flashattn and cuDNN alone in the process, on main with the one-round combine). On any other GPU: why B 1
# L 128k is our worst decode cell on the H100 (call 1: 195.7 us flushed against cuDNN's 187.7, 0.959) when B 4
# L 32k, the same 512 MiB in nearly the same CTAs (256 of 4096 keys against 264 of ~3972), reads 190.6
# against 187.2: each shape's timings (decode_once --time) for ours and cuDNN, and ncu of one launch of our
# decode and combine kernels at both shapes and of cuDNN's at B 1 L 128k (duration, DRAM throughput).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s47/call4-decode-grid/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 150
export PYTHONPATH=build-gpu/python
for shape in "1 131072" "4 32768"; do
  read -r b len <<<"$shape"
  for impl in flashattn cudnn; do
    timeout 40 python3 bench/decode_once.py --impl "$impl" --batch "$b" --length "$len" --time 100 \
      >"$L/time_${impl}_b$b.log" 2>&1
    echo "== $impl B $b L $len"; cat "$L/time_${impl}_b$b.log"
  done
  timeout 40 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats -k regex:'decode_sm80|combine_decode' --launch-skip 2 -c 2 -o "$L/ncu_ours_b$b" \
    python3 bench/decode_once.py --batch "$b" --length "$len" --runs 3 >"$L/ncu_ours_b$b.log" 2>&1
  echo "ncu ours B $b rc=$? at $((SECONDS - device_t0)) s"
done
timeout 40 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
  -k regex:'sdpa|fmha|cudnn|flash|attn' --launch-skip 2 -c 1 -o "$L/ncu_cudnn_b1" \
  python3 bench/decode_once.py --impl cudnn --batch 1 --length 131072 --runs 3 >"$L/ncu_cudnn_b1.log" 2>&1
echo "ncu cudnn rc=$? at $((SECONDS - device_t0)) s"
for r in "$L"/ncu_*.ncu-rep; do ncu -i "$r" --page details >"${r%.ncu-rep}_details.txt" 2>&1; done
grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Registers Per|DRAM Throughput|Memory Throughput|Waves Per SM" \
  "$L"/ncu_*_details.txt | head -60
rm -f "$L"/*.ncu-rep
echo "done at $((SECONDS - device_t0)) s"
