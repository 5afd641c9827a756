#!/usr/bin/env bash
# Session 23 call 3: the sm90 backward at D 64 with each step's dQ staged in the next step once its Sᵀ has
# landed (change commit in .ab/change_commit) against its parent, on the paper grid's D 64 cells, full and
# causal (two interleaved runs a side, cuDNN after); D 64 kernels only; CudaBackwardSm90.* at the quick tier
# while the base builds; then compute-sanitizer memcheck and synccheck of the change on the
# off-tile-multiple lengths.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op bwd --head-dims 64" timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
for tool in memcheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_$tool.log | head -4
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
