#!/usr/bin/env bash
# Session 8 call 1: the sm90 forward's overlap across tiles (79b54f4) A/B against its parent f94089d
# (scripts/ab: both built for 90a, head dims 64;128;256, bf16; bench/peers.py interleaved twice), then the
# sm90 forward tests of the change's build (full tier) and compute-sanitizer on the quick sweep.
set -uo pipefail
export FLASHATTN_COMMIT=79b54f4
L=$OUT/logs; mkdir -p $L
FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1
echo "ab rc=$?"; cat $L/ab/ab.txt; cp $L/ab/change_1.json $OUT/peers_xtile_1.json 2>/dev/null
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 90 $T --gtest_filter='CudaForwardSm90.*:CudaOffsets64Bit.Hopper*' \
  > $L/tests_fwd90_full.log 2>&1; echo "fwd90 full rc=$?"; tail -3 $L/tests_fwd90_full.log
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 50 compute-sanitizer --tool $tool --error-exitcode 1 $T \
    --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/$tool.log 2>&1; echo "$tool rc=$?"; tail -2 $L/$tool.log
done
grep -E "spill" $L/ab/change/kernels.txt | sort | uniq -c
rm -f $L/ab/change/build.log
