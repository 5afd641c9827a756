#!/usr/bin/env bash
# Session 60, call 2 (245 s on the warm H100 of call 1): ../bwd-d128-80-rows-ab/command.sh as it ran with the
# grids cut to full and causal (the device's copy edited in the call: `sed` of AB_PEERS_ARGS and the A/B's
# limit, run through ../../h200-gpu-logs-20261204-s28/wrap.sh with 380), on a working tree of c4e7f48 with
# D 128's tile back at 64 query rows (BwdTileSm90{64, ...} with dq_transposed and dv_after_ds: the form
# kept in this session's commit after it). .commit still read c4e7f48; base: f107292 (.ab/base.tar.gz).
# Asked: does call 1's loss come from the 80 rows or from the transposed dQ and dS-before-dV order?
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_evidence_on_h200
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10; --op bwd --head-dims 128 --masks causal --samples 10" \
  device_ab "$L/ab" 330
left=$((470 - SECONDS + device_t0))
((left > 60)) && device_memcheck "$L/memcheck" 'CudaBackwardSm90.LengthsOffTileMultiples' "$left"
echo "done at $((SECONDS - device_t0)) s"
