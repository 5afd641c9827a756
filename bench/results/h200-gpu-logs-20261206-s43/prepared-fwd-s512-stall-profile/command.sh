#!/usr/bin/env bash
# Prepared in session 43 (not yet run; any 132-SM GPU, ~180 s with its build): what a forward tile waits on
# today, where the forward is furthest from its floors. (1) S 512: at D 128 / 256 and S <= 2k both we and
# cuDNN run at 0.88-1.08x the sum of the cell's HBM floor (63 us: its 268 MB of Q, K, V and O) and its tensor
# floor, 1.5-1.7x the larger of the two (docs/PERF.md, "Session 43"); the only stall profile of such a cell
# predates session 18's per-tile cuts and reads issue-bound (data waits 8.8% of samples). (2) Long-context
# GQA at B 8 S 4k, causal (Hq 32 / Hkv 8): FA3 measured 708 TFLOP/s there against its 597-627 at MHA causal
# 4k (anchors), cuDNN 610 against 571 (session 37), we 628 against 625: the others gain 7-15% from GQA's
# bigger grid and shared K / V, we do not; the per-tile share of our samples there against S 512's says
# whether the tile boundary is what we lose. ncu --set full, one launch each at the natural clock, with the SASS
# stall export (per-instruction stall samples: the try-wait polls of the Q / K / V full barriers against the
# rest), DRAM throughput and L2 hit rate beside the kernel time.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start, at most 300).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90" device_build "$L/build" 150
export PYTHONPATH=build-gpu/python
profile() {  # profile NAME KERNEL_REGEX ARGS...: one launch of bench/fwd_once.py under ncu --set full
  local name=$1 kernels=$2
  shift 2
  timeout 60 ncu --clock-control none --set full -k "regex:$kernels" --launch-skip 1 -c 1 -o "$L/ncu_$name" \
    python3 bench/fwd_once.py --head-dim 128 "$@" >"$L/ncu_$name.log" 2>&1
  echo "ncu $name rc=$? at $((SECONDS - device_t0)) s"
  ncu -i "$L/ncu_$name.ncu-rep" --page details >"$L/ncu_${name}_details.txt" 2>&1
  ncu -i "$L/ncu_$name.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip >"$L/ncu_${name}_sass.csv.gz"
  grep -E "Duration|DRAM Throughput|L2 Hit Rate|Executed Instructions  " "$L/ncu_${name}_details.txt" | head -6
  rm -f "$L/ncu_$name.ncu-rep"
}
profile ours_d128_full_s512 fwd_sm90 --impl flashattn --seqlen 512
profile ours_d128_causal_s512 fwd_sm90 --impl flashattn --seqlen 512 --causal
profile cudnn_d128_full_s512 'fmha|sdpa|flash|fprop|attn' --impl cudnn --seqlen 512
profile ours_gqa_b8_s4k fwd_sm90 --impl flashattn --seqlen 4096 --tokens 32768 --hidden 4096 --heads-kv 8 --causal
for n in ours_d128_full_s512 ours_gqa_b8_s4k; do
  python3 bench/ncu_stalls.py "$L/ncu_${n}_sass.csv.gz" counts
done
echo "done at $((SECONDS - device_t0)) s"
