#!/usr/bin/env bash
# Session 23 call 2: the sm90 backward's rotated query-block walk with an unbounded right window (key
# block n starts at query block n mod blocks; change commit in .ab/change_commit) against its parent on
# the paper grid's full-attention cells, D 64 / 128 / 256 (two interleaved runs a side, cuDNN after);
# CudaBackwardSm90.* at the quick tier while the base builds; then compute-sanitizer memcheck of the
# change on the off-tile-multiple lengths.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op bwd --masks full" timeout 480 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_memcheck.log | head -4
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
