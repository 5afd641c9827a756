#!/usr/bin/env bash
# Session 60, call 3 (255 s on the same warm H100): call 2's A/B again with GQA-long added (the same working
# tree: c4e7f48 with D 128 at 64 query rows, against f107292), to check call 2's gain against the noise;
# ../bwd-d128-80-rows-ab/command.sh with the memcheck skipped (`left=0`), run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh with 330.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_evidence_on_h200
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10; --op bwd --grid gqa-long --seqlens 4096,8192,32768 --samples 10; --op bwd --head-dims 128 --masks causal --samples 10" \
  device_ab "$L/ab" 400
echo "done at $((SECONDS - device_t0)) s"
