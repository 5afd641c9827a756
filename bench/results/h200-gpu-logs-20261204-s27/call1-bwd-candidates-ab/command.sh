#!/usr/bin/env bash
# Session 27 call 1: the two backward candidates prepared in session 26 (bf16, default rows):
#   A/B 1: whole query blocks found once per CTA (6a88eb8, .ab/c1_commit) against 44a4e0a, D 64 + 128 + 256
#          grid, from an extracted tree of 6a88eb8;
#   A/B 2: D 128's next Sᵀ issued once the step's products have completed, on top (working tree,
#          .ab/change_commit) against 6a88eb8, D 64 + 128 grid, with CudaBackwardSm90.* at the quick tier
#          while the base builds; memcheck of the varlen / off-tile tests.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
root=$PWD
export FLASHATTN_CUTLASS_DIR=$root/third_party/cutlass/include AB_IMPLS=flashattn
gunzip -f .ab/base.tar.gz .ab/c1.tar.gz
c1=$(mktemp -d)/c1; mkdir -p $c1 && tar xf .ab/c1.tar -C $c1
(cd $c1 && FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_COMMIT=$(cat $root/.ab/c1_commit) AB_CHANGE_STEPS=build \
  AB_PEERS_ARGS="--op bwd --head-dims 64,128,256" timeout 300 scripts/ab $L/ab1 $root/.ab/base.tar > $L/ab1.log 2>&1)
echo "ab1 rc=$? at $((SECONDS - t0)) s"; cat $L/ab1/ab.txt
FLASHATTN_HEAD_DIMS="64;128" FLASHATTN_COMMIT=$(cat .ab/change_commit) AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd --head-dims 64,128" \
  timeout 230 scripts/ab $L/ab2 .ab/c1.tar > $L/ab2.log 2>&1
echo "ab2 rc=$? at $((SECONDS - t0)) s"; cat $L/ab2/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab2/tests.log | head -20
FLASHATTN_GPU_TIER=quick timeout 40 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.Varlen*:CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_memcheck.log | head -4
rm -rf $L/ab1/change/build.log $L/ab2/change/build.log
echo "done at $((SECONDS - t0)) s"
