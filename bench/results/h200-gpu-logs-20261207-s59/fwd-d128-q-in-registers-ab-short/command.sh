#!/usr/bin/env bash
# Session 59: session 58's prepared A/B (../../h200-gpu-logs-20261207-s58/prepared-fwd-d128-q-in-registers-ab/)
# cut to fit the device time left after failed starts: two runs a side and five cells, the power-capped
# GQA-long cells it aims at (32k, 128k) and the short cells it must not lose (causal 512, 2k; full 1k).
# Change: 8a947d0 (D 128's short-key tile reads Q into registers once per tile, Q·Kᵀ as an RS wgmma) applied
# over main; base: main (.ab/base.tar.gz). Keep rule as in session 58's script: GQA-long geomean >= 1.01,
# no cell below 0.99, tests pass. Run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 300).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=150 \
  AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--op fwd --grid gqa-long --seqlens 32768,131072; --op fwd --head-dims 128 --masks causal --seqlens 512,2048; --op fwd --head-dims 128 --masks full --seqlens 1024" \
  device_ab "$L/ab" 280
echo "done at $((SECONDS - device_t0)) s"
