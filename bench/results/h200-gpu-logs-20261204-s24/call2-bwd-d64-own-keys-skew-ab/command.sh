#!/usr/bin/env bash
# Session 24 call 2: the D 64 backward's dQ over each warpgroup's own keys (552c32d) and the warpgroup skew
# on it (f22f334), both cherry-picked onto main without the uniform descriptors they were last rebased on
# (those lost in call 1), A/B'd together against ec2e341 (change commit in .ab/change_commit) on the D 64
# backward grid. D 64 kernels only, bf16; CudaBackwardSm90.* at the quick tier while the base builds (its
# deterministic reruns check the fixed order of the two dQ additions); then memcheck and synccheck (the skew
# adds a named barrier) on one backward test.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*' \
  FLASHATTN_GPU_TIER=quick AB_PEERS_ARGS="--op bwd --head-dims 64" \
  timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
for tool in memcheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_$tool.log | head -4
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
