#!/usr/bin/env bash
# Prepared in session 37 (not yet run; any GPU with 132 SMs: H100 or H200): how much the backward's last
# partial round of equal tiles costs, before building anything for it (docs/PERF.md, "Backward, session 37",
# the plan for the full cells). Full attention, bf16, B·H·S fixed near the grid's: a persistent CTA per SM
# takes tiles of BLOCK_N keys x one (batch, kv head), all equally long, so the grid runs ceil(tiles / 132)
# rounds. Pairs of shapes with nearly the same FLOPs, one whose tile count leaves a partial last round and
# one that fills its rounds exactly:
#   D 128: B 1 H 16 S 16384 (2048 tiles, 15.52 rounds) against B 1 H 15 S 16896 (1980 tiles, 15 rounds) and
#          B 2 H 16 S 8192 (2048) against B 1 H 33 S 8192 (2112 = 16 x 132);
#   D 64:  B 1 H 32 S 16384 (4096 tiles, 31.03 rounds) against B 1 H 33 S 16384 (4224 = 32 x 132).
# If the partial round costs what the list-scheduling model says, the filled shape runs 1.031x the other's
# TFLOP/s at D 128 16k / 8k and D 64; if the CTAs' drift already hides it, ~1.00. Three interleaved rounds of
# the CLI (flashattn bench, verified), build-bin carried (no device build).
# Prepare: scripts/build-for-device "64;128" bf16 (build-bin/, ~10 MB); carry ["build-bin"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 240).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm --format=csv > "$L/gpu.txt"; cat "$L/gpu.txt"; cat build-bin/COMMIT
tflops() {  # a CLI report's TFLOP/s, verdict and kernel
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(round(r["gflops"] / 1e3, 1), "TFLOP/s", "verified" if r["verify"]["passed"] else "NOT VERIFIED", r["kernel"])' "$1" 2>&1
}
shapes=("d128_h16_s16k 128 1 16 16384" "d128_h15_s16896 128 1 15 16896" "d128_b2h16_s8k 128 2 16 8192"
        "d128_h33_s8k 128 1 33 8192" "d64_h32_s16k 64 1 32 16384" "d64_h33_s16k 64 1 33 16384")
for round in 1 2 3; do
  for shape in "${shapes[@]}"; do
    read -r name dim batch heads seqlen <<< "$shape"
    timeout 60 build-bin/flashattn bench --backend cuda --op bwd --batch "$batch" --heads "$heads" \
      --seqlen-q "$seqlen" --head-dim "$dim" --samples 10 --warmup 3 --quiet --json "$L/${name}_$round.json" \
      > "$L/${name}_$round.log" 2>&1
    echo "$name round $round rc=$? at $((SECONDS - t0)) s: $(tflops "$L/${name}_$round.json")"
  done
done
echo "done at $((SECONDS - t0)) s"
