#!/usr/bin/env bash
# Session 61, call 4 (~250 s, any 132-SM GPU; on an H200 it runs issues 4-6's evidence grids on main
# instead): call 3's A/B of the D 64 128 x 128 backward tile again (the working tree, 825fc09's kernels, against
# 92889f5: the run-to-run spread of a kept change), and c1 = b7f727c, the same tile with each step's dQ handed to
# the writer right after its staging (defer_dq_hand_over off; it measured 1.008-1.060x at 64-row steps,
# session 29; spills 140 / 228 against 160 / 268). Predicted: the rerun 1.02-1.05 again; c1 within 1% of it.
# Prepare: rm -rf .ab && mkdir .ab && git archive 92889f5 -o .ab/base.tar -- . ':!bench/results'
#   git archive b7f727c -o .ab/undeferred.tar -- . ':!bench/results'; gzip .ab/*.tar
#   tar czf .ab/cutlass.tgz -C third_party/cutlass include; git rev-parse HEAD > .commit
#   carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_evidence_on_h200
FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=90 \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.Deterministic*' \
  AB_PEERS_ARGS="--op bwd --head-dims 64 --samples 10" \
  device_ab "$L/ab" 360 .ab/undeferred.tar
echo "done at $((SECONDS - device_t0)) s"
