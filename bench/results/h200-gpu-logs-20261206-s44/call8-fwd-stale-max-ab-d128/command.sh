#!/usr/bin/env bash
# Session 44, call 8 (any 132-SM GPU, ~190 s): call 7 cut to the budget a failed machine start (211 s) left:
# the stale row maximum (4bf7439) against main before it at D 128 only (paper grid, two runs a side), with
# the change's CudaForwardSm90 tests as the gate and no memcheck. Prediction and rule as call 7's.
# Prepare as call 7. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=60 AB_PEERS_ARGS="--op fwd --head-dims 128" device_ab "$L/ab" 195
echo "done at $((SECONDS - device_t0)) s"
