#!/usr/bin/env bash
# Prepared in session 49 (not run; any GPU with 132 SMs, ~3 minutes): what the forward's last partial round of
# equal (full-mask) tiles costs, before building a split tail for it. Every full cell of the paper grid has
# 2048 tiles at D 128 (15.52 rounds of 132 CTAs, or of 66 cluster pairs from 8k keys), 1024 at D 256 (7.76)
# and 4096 at D 64 S <= 1k (31.03), so 68 (116, 4) tiles run a last round while the other CTAs idle: 3.1% by the
# list-scheduling model, and 3% is what D 128 full lacks for 1.05x cuDNN (1.003-1.019 in session 37). The
# backward's same tail measured ~1.1% at D 128 and nothing at D 64 (backward session 38), so measure before
# building. Pairs of full-mask shapes, one with the grid's partial last round, one whose tile count fills
# whole rounds (S + 1/32, or one head more), TFLOP/s normalising their FLOPs:
#   D 128 S 16k: B 1 H 16 S 16384 (2048 tiles) against S 16896 (2112 = 16 x 132; cluster pairs both);
#   D 128 S 4k:  B 4 H 16 S 4096 (2048) against S 4224 (2112; unpaired);
#   D 256 S 16k: B 1 H 8 S 16384 (1024) against S 16896 (1056 = 8 x 132);
#   D 64 S 1k:   B 16 H 32 S 1024 (4096) against H 33 (4224 = 32 x 132).
# If the partial round costs what the model says, the filled shape runs ~1.03x the other's TFLOP/s (a longer
# S alone is worth ~+0.3% at 16k: compare D 128 16k / 16.5k with 8k / 16k in the grid); ~1.01 or less would say
# the CTAs' drift hides most of it, as in the backward. Three interleaved rounds of the CLI (verified).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 300).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90" \
  FLASHATTN_GPU_STEPS=build device_build "$L/build" 150
shapes=("d128_s16k 128 1 16 16384" "d128_s16896 128 1 16 16896" "d128_s4k 128 4 16 4096" "d128_s4224 128 4 16 4224"
        "d256_s16k 256 1 8 16384" "d256_s16896 256 1 8 16896" "d64_h32_s1k 64 16 32 1024" "d64_h33_s1k 64 16 33 1024")
for round in 1 2 3; do
  for shape in "${shapes[@]}"; do
    read -r name dim batch heads seqlen <<< "$shape"
    timeout 60 build-gpu/flashattn bench --backend cuda --op fwd --batch "$batch" --heads "$heads" \
      --seqlen-q "$seqlen" --head-dim "$dim" --samples 20 --warmup 5 --quiet --json "$L/${name}_$round.json" \
      > "$L/${name}_$round.log" 2>&1
    echo "$name round $round rc=$? at $((SECONDS - device_t0)) s: $(device_cli_tflops "$L/${name}_$round.json")"
  done
done
echo "done at $((SECONDS - device_t0)) s"
