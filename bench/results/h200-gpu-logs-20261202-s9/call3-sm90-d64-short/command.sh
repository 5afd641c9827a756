#!/usr/bin/env bash
# Session 9 call 3: the sm90 forward's D = 64 short-key tile (128x128, two consumer warpgroups, up to 512
# mean keys per row; b5c2ec1) A/B against 098e9de (192x96 everywhere), D 64 bf16, three interleaved runs,
# cuDNN in a run of its own; pytest of the change's build (D 64 kernels); then the sm90 forward tests at the
# full tier and memcheck + racecheck + synccheck over the sm90 quick sweep.
set -uo pipefail
export FLASHATTN_COMMIT=b5c2ec1
L=$OUT/logs; mkdir -p $L
FLASHATTN_HEAD_DIMS=64 AB_RUNS=3 AB_PEER=cudnn AB_PEERS_ARGS="--head-dims 64" \
  timeout 300 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1; echo "ab rc=$?"; cat $L/ab/ab.txt
tail -2 $L/ab/change/pytest.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 100 $T --gtest_filter='CudaForwardSm90.*' > $L/tests_fwd90_full.log 2>&1
echo "fwd90 full rc=$?"; grep -E "^\[  (PASSED|FAILED)|tests ran" $L/tests_fwd90_full.log
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 70 compute-sanitizer --tool $tool --error-exitcode 1 \
    $T --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/${tool}90.log 2>&1
  echo "$tool rc=$?"; tail -1 $L/${tool}90.log
done
rm -f $L/ab/change/build.log
