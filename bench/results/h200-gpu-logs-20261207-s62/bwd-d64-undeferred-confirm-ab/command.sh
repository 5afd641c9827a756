#!/usr/bin/env bash
# Session 62, call 3 (the H100 of calls 1-2, warm): the D 64 backward with dQ handed over right after its
# staging (defer_dq_hand_over off), now on main's tree (the working tree: main + that one flag), against
# main (ef5e62c, .ab/base.tar): call 2 read b7f727c (the same flag on 825fc09's tree) 1.023 (1.004-1.040)
# against an A/A of 0.996 (0.978-1.007). Tests as call 2's.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=90 \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.Deterministic*' \
  AB_PEERS_ARGS="--op bwd --head-dims 64 --samples 10" \
  device_ab "$L/ab" 300
echo "done at $((SECONDS - device_t0)) s"
