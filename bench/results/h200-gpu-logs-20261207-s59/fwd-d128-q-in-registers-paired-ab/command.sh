#!/usr/bin/env bash
# Session 59, call 2: Q in registers for D 128's paired short-key tile only (regime 4: causal walks of
# 8,192 keys or more), the form call 1 (../fwd-d128-q-in-registers-ab-short/) pointed to: both short-key
# regimes there gave GQA-long 32k / 128k 1.029 / 1.007 and causal S 512 (unpaired) 0.972. Change: this
# commit's src (the working tree); base: its parent (.ab/base.tar.gz). Cells: the paired GQA-long 8k, 32k,
# 128k, and causal S 512 as the control the change does not reach (expected 1.00). Keep if the paired cells'
# geomean >= 1.01, none below 0.99, tests pass. Run through ../../h200-gpu-logs-20261204-s28/wrap.sh (220).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=100 \
  AB_TESTS='CudaForwardSm90.*Pairs*:CudaForwardSm90.SweepMatchesOracle' \
  AB_PEERS_ARGS="--op fwd --grid gqa-long --seqlens 8192,32768,131072; --op fwd --head-dims 128 --masks causal --seqlens 512" \
  device_ab "$L/ab" 200
echo "done at $((SECONDS - device_t0)) s"
