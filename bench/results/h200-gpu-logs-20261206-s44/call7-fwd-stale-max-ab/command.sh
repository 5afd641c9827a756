#!/usr/bin/env bash
# Session 44, call 7 (any 132-SM GPU, ~330 s): the sm90 forward's stale row maximum (03170a9) against main
# before it. A row keeps the maximum its exponentials are taken against while the true one exceeds it by at
# most 8 (log2 domain), so the warp-uniform O rescale (64 multiplies per thread a step at D 128, 128 at D 256,
# 32 at D 64), which today runs on every tile that raises any of a warp's 16 row maxima (every tile of a short
# sequence, ~40% of a 16k one's with random inputs), runs only on the rare tile that raises one by more than
# 8. Predicted: +0-1.5% at D 128 / 256 (the rescale sits inside the ping-pong window, between Q·Kᵀ's issue and
# P·V's, so it shortens the window rather than the tensor pipe's work), +0-1% at D 64; tests unchanged
# (the quick sweep's large-input cases, inputs x5, cross the threshold both ways).
# Keep if the paper grid's geometric mean >= 1.005 with no cell below 0.99 and the tests and memcheck pass.
# Prepare: rm -rf .ab && mkdir .ab && git archive 4bf7439~1 -o .ab/base.tar -- . ':!bench/results' && gzip .ab/base.tar
#   git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op fwd; --op fwd --grid gqa-long --seqlens 8192,16384 --samples 10" \
  device_ab "$L/ab" 380
FLASHATTN_HEAD_DIMS="64;128;256" device_memcheck "$L/memcheck" 'CudaForwardSm90.SweepMatchesOracle' \
  $((420 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
