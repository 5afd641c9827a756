#!/usr/bin/env bash
# Session 61, call 3 (~350 s, any 132-SM GPU; on an H200 it runs issues 4-6's evidence grids on main
# instead): FlashAttention-3's D 64 backward tile, 128 query rows x 128 keys, dQ split by query rows between
# the consumer warpgroups (dq_by_rows), dS before dV with Sᵀ / dPᵀ cleared (dv_after_ds, which let it compile
# without serialised wgmmas: C7512 in sessions 20 and 24), no products ahead, K / V read from shared memory;
# the working tree (825fc09, two stages, spills 160 / 268) and c1 (three stages, spills 236 / 372) against
# main (64 x 128, four stages, products ahead 2, K / V in registers; spills 156 / 208). Predicted from the
# halved per-step costs and FA3's 500 TFLOP/s at D 64 S 16k: +2 ... +5% at full masks from 1k keys.
# Prepare: rm -rf .ab && mkdir .ab && git archive 92889f5 -o .ab/base.tar -- . ':!bench/results'
#   git archive 35d9ff3 -o .ab/s3.tar -- . ':!bench/results'; gzip .ab/*.tar
#   tar czf .ab/cutlass.tgz -C third_party/cutlass include; git rev-parse 825fc09 > .commit
#   (the working tree: 825fc09); carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_evidence_on_h200
FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op bwd --head-dims 64 --samples 10" \
  device_ab "$L/ab" 380 .ab/s3.tar
left=$((480 - SECONDS + device_t0))
((left > 60)) && device_memcheck "$L/memcheck" 'CudaBackwardSm90.LengthsOffTileMultiples' "$left"
echo "done at $((SECONDS - device_t0)) s"
