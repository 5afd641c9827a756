#!/usr/bin/env bash
# Prepared in session 37 (not yet run; H200 only): where the backward loses on long-context GQA. Session 37's
# H200 grid: GQA-long (Hq 32 / Hkv 8, D 128, causal, bf16) 529 / 567 / 585 / 552 / 552 / 556 TFLOP/s at
# B 8 S 4k, B 1 S 8k ... 128k, against FlashAttention-3's 472 / 524 / 582 / 590 / 600 / 601 on this H200
# (../../../shared/anchors/README.md) and our own MHA causal 16k (H 16) at 614: from S 32k we fall 5% below
# our 16k cell while FA3 rises. Our tile owns a key block of a kv head and walks the four query heads' blocks
# (dK / dV summed in registers), FA3's one query head's (dK / dV summed by atomics), so the query-side rows
# our CTAs touch together span up to four times FA3's: Q, dO and the fp32 dQ of one head are 16 MB at 16k,
# 32 MB at 32k (L2 ~60 MB). Measure before changing: ncu (natural clock, --set full) of the sm90 backward
# kernel at GQA S 16k and 32k and at MHA causal 16k, their L2 hit rates, DRAM bytes and throughput, and the
# warp stall samples by SASS line (the source page), beside the CLI's timing of each.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 450).
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
L=$OUT/logs; mkdir -p "$L"
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90" \
  FLASHATTN_GPU_STEPS=build device_build "$L/build" 200
cells=("gqa16k 32 8 16384" "gqa32k 32 8 32768" "mha16k 16 16 16384")
for cell in "${cells[@]}"; do
  read -r name heads heads_kv seqlen <<< "$cell"
  args=(bench --backend cuda --op bwd --batch 1 --heads "$heads" --heads-kv "$heads_kv" --seqlen-q "$seqlen"
        --head-dim 128 --causal)
  timeout 40 build-gpu/flashattn "${args[@]}" --samples 5 --warmup 2 > "$L/time_$name.log" 2>&1
  echo "time $name rc=$? at $((SECONDS - device_t0)) s"; tail -3 "$L/time_$name.log"
  timeout 90 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o "$L/ncu_$name" \
    build-gpu/flashattn "${args[@]}" --samples 2 --warmup 1 --quiet > "$L/ncu_$name.log" 2>&1
  echo "ncu $name rc=$? at $((SECONDS - device_t0)) s"
  ncu -i "$L/ncu_$name.ncu-rep" --page details > "$L/ncu_${name}_details.txt" 2>&1
  ncu -i "$L/ncu_$name.ncu-rep" --page source --csv --print-source sass 2>/dev/null |
    gzip > "$L/ncu_${name}_sass.csv.gz"
  grep -E "Duration|L2 Hit Rate|DRAM Throughput|Memory Throughput|L1/TEX Hit|Compute \(SM\) Throughput" \
    "$L/ncu_${name}_details.txt" | head -8
done
rm -f "$L"/*.ncu-rep
echo "done at $((SECONDS - device_t0)) s"
