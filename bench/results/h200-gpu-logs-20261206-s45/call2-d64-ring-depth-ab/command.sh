#!/usr/bin/env bash
# Session 45, call 2 (any 132-SM GPU, ~330 s): deeper K / V rings for D 64's two sm90 forward tiles. At S 512
# a D 64 tile is 1-4 key steps of ~1.5-2k cycles and the rings (2 K + 3 V stages) let the producer run about
# one step ahead, less than an HBM read's latency under load, while neither unit is saturated (S 512 profile,
# session 44: memory and tensor phases overlap 13%). The change (working tree, main at 748aaac): both D 64
# tiles at 4 K + 5 V stages (128x128: 192 KB; 192x96: 180 KB); c1 the 128x128 tile alone (be7e0ef), c2 the
# 192x96 tile alone (base + 748aaac). Base: bb51cdc. 0 spills, no C75xx (D 64 cubin, nvcc 13.0).
# Predicted: +1-4% at S <= 1k (128x128 tile: causal most), 0-2% from 2k (192x96 tile).
# Prepare: rm -rf .ab && mkdir .ab && git archive bb51cdc -o .ab/base.tar -- . ':!bench/results'
#   git archive be7e0ef -o .ab/c1.tar -- . ':!bench/results'; worktree at bb51cdc + cherry-pick 748aaac
#   archived to .ab/c2.tar; gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' AB_TESTS_TIMEOUT=120 \
  AB_RUNS=3 AB_PEERS_ARGS="--op fwd --head-dims 64" device_ab "$L/ab" 300 .ab/c1.tar .ab/c2.tar
FLASHATTN_HEAD_DIMS="64" device_memcheck "$L/memcheck" 'CudaForwardSm90.SweepMatchesOracle' \
  $((340 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
