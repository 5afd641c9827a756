#!/usr/bin/env bash
# Prepared in session 50 (not run; any GPU with 132 SMs, ~540 s). The sm90 forward's split tail (f053227: the
# code call 6 ran as 32d2228, a comment corrected, RunInfo.cut_tiles recorded and tested, and cluster pairs
# walking the stream as units): an unmasked call whose equal tiles end in a partial round walks its last
# whole round and the partial one as a stream of key tiles in equal stretches, a tile cut between two CTAs
# merged by the one holding its key tile 0 through the workspace (a slot per CTA, flags cleared per call),
# from 8 key tiles a tile; not with GQA packing. Call 1 measured what the partial round costs: D 128 S 4k 3.1%
# (the model's 3.1%), D 64 S 1k 1.8%; call 6 (32d2228 alone, D 128): S 4k within 1.2% of S 4224 (whole rounds).
# Predicted (full masks, against main): D 128 S 1k-16k +1.5-2.5% (8k / 16k in cluster pairs, first run
# here), D 64 S 1k-4k +1-2.5% (S 8k / 16k +0.5%: 20.85 rounds), D 256 S 512-16k +1-2.5%; D 128 S 512 (4 key
# tiles) and D 64 S 512 unchanged; causal cells unchanged (never a stream). Keep if the changed cells' geomean
# >= 1.005, no cell < 0.99 (S 1k, the stream's shortest, is the one to watch), CudaForwardSm90.* pass
# (PartialRoundsOfEqualTilesCutTilesBetweenCtas among them, with its cluster-pair case), memcheck clean. Then
# call 1's tail-bound pairs on the change.
# Prepare: git checkout f053227 -- src tests include python tools bench/peers.py (the working tree is the
# change; git reset, restore after); .ab/base.tar.gz from main (git archive HEAD -o .ab/base.tar -- .
# ':!bench/results', gzip); git rev-parse HEAD > .commit; carry [".ab", "third_party/cutlass", ".commit"]; run
# through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 570).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op fwd --masks full" device_ab "$L/ab" 400
FLASHATTN_HEAD_DIMS="64;128;256" device_memcheck "$L/memcheck" \
  'CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas' $((480 - SECONDS + device_t0))
cmake --build build-gpu -j "$(nproc)" --target flashattn_cli >"$L/cli_build.log" 2>&1  # the A/B built the binding
for shape in "d128_s4k 128 4 16 4096" "d128_s4224 128 4 16 4224" "d64_h32_s1k 64 16 32 1024" "d64_h33_s1k 64 16 33 1024"; do
  read -r name dim batch heads seqlen <<< "$shape"
  timeout 40 build-gpu/flashattn bench --backend cuda --op fwd --batch "$batch" --heads "$heads" \
    --seqlen-q "$seqlen" --head-dim "$dim" --samples 20 --warmup 5 --quiet --json "$L/$name.json" > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - device_t0)) s: $(device_cli_tflops "$L/$name.json")"
done
echo "done at $((SECONDS - device_t0)) s"
