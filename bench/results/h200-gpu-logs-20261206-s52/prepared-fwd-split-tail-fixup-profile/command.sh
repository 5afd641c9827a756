#!/usr/bin/env bash
# Prepared in session 52 (not run; any GPU with 132 SMs, ~500 s). Where the split tail's fixup goes. Session
# 51 measured the stream at every key length costing ~10 us a call at D 64 / 128 and ~20-25 us at D 256
# (D 256 S 512 -12%: about one tile's time), which is why main cuts tiles only from 4,096 keys. The working
# tree is 7cff5bf (main b6af8b6 with FLASHATTN_DIAG_SPLIT_TAIL overriding the gate: off, no stream; on, the
# stream; nofix, the stream with each piece stored as a whole tile: wrong output, the time without the
# partials' write, flag wait and merge; keep, on with the default memory pool holding its memory mapped).
# The lead: the workspace (8.8 MB at D 128, 17.6 MB at D 256, constant in S like the cost) comes from
# cudaMallocAsync every call, and the pool returns it to the driver at every synchronisation (release
# threshold 0), so each timed call maps it afresh; that cost the backward +54% at S 512 before it took a
# caller workspace (docs/PERF.md, "CUDA backward v2"). Per shape, the four modes interleaved twice by the
# CLI (whole calls), then ncu (the kernel alone). Reading: on - keep is the mapping; keep - nofix the
# partials' write and merge; nofix - off + the model's saving the extra pieces' fixed cost; ncu's on - off
# the in-kernel part. Then ncu --set full of off and on at D 256 S 512 with the SASS stalls.
# Prepare: git checkout 7cff5bf -- src; git reset -q (restore after); git rev-parse HEAD > .commit; carry
# ["third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 560; the
# steps run in the order of what they answer, so a cut loses the least).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90" \
  FLASHATTN_GPU_STEPS=build device_build "$L/build" 240
shapes=("d256s512 256 32 8 512" "d128s1k 128 16 16 1024" "d64s1k 64 16 32 1024" "d128s4k 128 4 16 4096")
cli() {  # cli NAME D B H S MODE OUT: one `flashattn bench` point under FLASHATTN_DIAG_SPLIT_TAIL=MODE
  FLASHATTN_DIAG_SPLIT_TAIL=$6 timeout 30 build-gpu/flashattn bench --backend cuda --op fwd --batch "$3" \
    --heads "$4" --seqlen-q "$5" --head-dim "$2" --samples 30 --warmup 5 --quiet --json "$7.json" >"$7.log" 2>&1
}
for rep in 1 2; do
  for shape in "${shapes[@]}"; do
    read -r name d b h s <<<"$shape"
    for mode in off on nofix keep; do
      cli "$name" "$d" "$b" "$h" "$s" "$mode" "$L/cli_${name}_${mode}_$rep"
      echo "cli $name $mode $rep: $(device_cli_tflops "$L/cli_${name}_${mode}_$rep.json")"
    done
  done
done
echo "cli done at $((SECONDS - device_t0)) s"
for mode in off on; do
  FLASHATTN_DIAG_SPLIT_TAIL=$mode timeout 60 ncu --clock-control none --set full -k regex:fwd_sm90 \
    --launch-skip 2 -c 1 -o "$L/full_d256s512_$mode" build-gpu/flashattn bench --backend cuda --op fwd \
    --batch 32 --heads 8 --seqlen-q 512 --head-dim 256 --samples 1 --warmup 3 --quiet >"$L/full_$mode.log" 2>&1
  ncu -i "$L/full_d256s512_$mode.ncu-rep" --page source --csv --print-source sass 2>/dev/null |
    gzip >"$L/full_d256s512_${mode}_sass.csv.gz"
  ncu -i "$L/full_d256s512_$mode.ncu-rep" --page details >"$L/full_d256s512_${mode}_details.txt" 2>&1
  rm -f "$L/full_d256s512_$mode.ncu-rep"
  python3 bench/ncu_stalls.py "$L/full_d256s512_${mode}_sass.csv.gz" counts >"$L/stalls_$mode.txt" 2>&1
  python3 bench/ncu_stalls.py "$L/full_d256s512_${mode}_sass.csv.gz" top --count 25 >>"$L/stalls_$mode.txt" 2>&1
  head -40 "$L/stalls_$mode.txt"
done
for shape in "${shapes[@]}"; do
  read -r name d b h s <<<"$shape"
  for mode in off on nofix; do
    FLASHATTN_DIAG_SPLIT_TAIL=$mode timeout 40 ncu --clock-control none --section SpeedOfLight -k regex:fwd_sm90 \
      --launch-skip 2 -c 2 build-gpu/flashattn bench --backend cuda --op fwd --batch "$b" --heads "$h" \
      --seqlen-q "$s" --head-dim "$d" --samples 1 --warmup 3 --quiet >"$L/ncu_${name}_$mode.txt" 2>&1
    echo "ncu $name $mode: $(grep -E '^ +Duration' "$L/ncu_${name}_$mode.txt" | awk '{print $3}' | tr '\n' ' ')us"
  done
done
echo "done at $((SECONDS - device_t0)) s"
