#!/usr/bin/env bash
# Session 9 call 1: the bulk-last tile order for the portable forward's short-key tile only (D 256 64x64; the
# 128x64 long-key tile's SASS unchanged up to register names) A/B against 98e471d, D 256 bf16, three
# interleaved runs, FlashAttention-2 in a run of its own; then the portable forward tests of the change's
# build at the full tier and memcheck over the quick sweep (D 256 kernels only).
set -uo pipefail
export FLASHATTN_COMMIT=510a342
L=$OUT/logs; mkdir -p $L
FLASHATTN_HEAD_DIMS=256 AB_RUNS=3 AB_PEER=fa2 AB_PEERS_ARGS="--path portable --head-dims 256" \
  timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1; echo "ab rc=$?"; cat $L/ab/ab.txt
FLASHATTN_GPU_TIER=full timeout 110 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm80.*' \
  > $L/tests_fwd80_full.log 2>&1; echo "fwd80 full rc=$?"; tail -3 $L/tests_fwd80_full.log
FLASHATTN_GPU_TIER=quick timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 \
  build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm80.SweepMatchesOracle' > $L/memcheck80.log 2>&1
echo "memcheck rc=$?"; tail -3 $L/memcheck80.log
rm -f $L/ab/change/build.log
