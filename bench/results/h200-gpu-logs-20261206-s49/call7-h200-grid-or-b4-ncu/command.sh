#!/usr/bin/env bash
# Session 49, call 7 (the last ~180 s). On an H200: session 47's call 4 (issue 6's decode grid, flashattn and
# cuDNN alone, on main with the split rule of 1f26dbf). On an H100: ncu of one launch of cuDNN's decode kernel
# and of ours (decode and combine) at B 4 L 32k, the 256-CTA cell where ours reads 195.6 us against cuDNN's
# 191.6 (call 6; call 1 has B 1 L 128k's): is the 4 us in the decode kernel or around it?
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s47/call4-decode-grid/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 120
export PYTHONPATH=build-gpu/python
for impl in flashattn cudnn; do
  timeout 30 ncu --clock-control none --section SpeedOfLight --section LaunchStats --launch-skip 2 -c 3 \
    -k regex:'decode|sdpa|fmha|flash|lean|reduction' -o "$L/ncu_${impl}_b4" \
    python3 bench/decode_once.py --impl "$impl" --batch 4 --length 32768 --runs 3 >"$L/ncu_${impl}_b4.log" 2>&1
  echo "ncu $impl rc=$? at $((SECONDS - device_t0)) s"
  ncu -i "$L/ncu_${impl}_b4.ncu-rep" --page details >"$L/ncu_${impl}_b4_details.txt" 2>&1
done
grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|DRAM Throughput" "$L"/ncu_*_details.txt | head -40
rm -f "$L"/*.ncu-rep
echo "done at $((SECONDS - device_t0)) s"
