#!/usr/bin/env bash
# Session 19 call 3 (fresh machine): A/B of ac0e923 (D 64: three Q buffers, Q loads two tiles ahead) against
# f7b8b09, the D 64 forward grid (full and causal, S 512-16k), with the change's CudaForwardSm90 tests (full
# tier) while the base builds; then compute-sanitizer memcheck, racecheck and synccheck of the change on the
# sm90 forward sweep (quick tier).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64" AB_CHANGE_STEPS=build AB_TESTS='CudaForwardSm90.*' AB_PEERS_ARGS="--head-dims 64" \
  timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/sanitizer_$tool.log | head -3
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
