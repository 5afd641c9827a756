#!/usr/bin/env bash
# Session 8 call 4: the portable forward's tile order (e513515) A/B against 4f19754 (same kernels otherwise), D 256
# bf16 only (the cell behind issue 3's last gap), scripts/ab with FlashAttention-2 as the reference peer;
# then the portable forward tests of the change's build (quick tier).
set -uo pipefail
export FLASHATTN_COMMIT=e513515
L=$OUT/logs; mkdir -p $L
FLASHATTN_HEAD_DIMS=256 AB_RUNS=2 AB_PEER=fa2 AB_PEERS_ARGS="--path portable --head-dims 256" \
  timeout 230 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1; echo "ab rc=$?"; cat $L/ab/ab.txt
FLASHATTN_GPU_TIER=quick timeout 40 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm80.*' \
  > $L/tests_fwd80.log 2>&1; echo "fwd80 rc=$?"; tail -3 $L/tests_fwd80.log
rm -f $L/ab/change/build.log
