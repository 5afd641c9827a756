#!/usr/bin/env bash
# Session 42, call 1 (any GPU with 132 SMs; ratios only): the L2 policies on the sm90 TMA loads (71db63a:
# forward K / V evict-last, Q evict-first; backward Q / dO evict-last, K / V evict-first) against main, the c1
# side of session 40's prepared-sm90-dqred-l2-ab alone (its dQ-reduction side lost in session 41).
# Grids, the targets first (a timeout cuts the last): the GQA-long backward at S 16k-64k and forward at
# 32k-128k (10 samples a point), then the D 128 backward and forward paper grids (the keep rule's guard).
# Keep per op: that op's GQA-long geometric mean >= 1.01 and its D 128 paper cells >= 0.99.
# Gate: the CudaBackwardSm90 / CudaForwardSm90 tests at the quick tier.
# Runs in a tree unpacked from .ab/l2.tar.gz = main + 71db63a (../dispatch.sh l2).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 \
  AB_TESTS='CudaBackwardSm90.*:CudaForwardSm90.*' AB_TESTS_TIMEOUT=120 \
  AB_PEERS_ARGS="--op bwd --grid gqa-long --seqlens 16384,32768,65536 --samples 10; --op fwd --grid gqa-long --seqlens 32768,65536,131072 --samples 10; --op bwd --head-dims 128; --op fwd --head-dims 128" \
  device_ab "$L/ab" 500
echo "done at $((SECONDS - device_t0)) s"
