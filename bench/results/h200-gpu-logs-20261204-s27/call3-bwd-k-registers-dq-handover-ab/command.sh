#!/usr/bin/env bash
# Session 27 call 3: two backward candidates (bf16, default rows):
#   A/B 1: D 64's K held in registers as Sᵀ's A fragment (.ab/c1_commit) against its parent, D 64 grid, from
#          an extracted tree (D 128 / 256 SASS identical, not built);
#   A/B 2: a step's dQ handed to the writer during the next step (working tree, .ab/change_commit) against
#          .ab/c1_commit, D 64 + 128 grid, deterministic rows too, CudaBackwardSm90.* at the quick tier while
#          the base builds; then memcheck of the varlen / off-tile tests, racecheck of the varlen causal
#          test and synccheck of the deterministic test (the hand-over's synchronisation changed).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
root=$PWD
export FLASHATTN_CUTLASS_DIR=$root/third_party/cutlass/include
gunzip -f .ab/base.tar.gz .ab/c1.tar.gz
c1=$(mktemp -d)/c1; mkdir -p $c1 && tar xf .ab/c1.tar -C $c1
(cd $c1 && FLASHATTN_HEAD_DIMS="64" FLASHATTN_COMMIT=$(cat $root/.ab/c1_commit) AB_CHANGE_STEPS=build AB_IMPLS=flashattn \
  AB_PEERS_ARGS="--op bwd --head-dims 64" timeout 190 scripts/ab $L/ab1 $root/.ab/base.tar > $L/ab1.log 2>&1)
echo "ab1 rc=$? at $((SECONDS - t0)) s"; cat $L/ab1/ab.txt
FLASHATTN_HEAD_DIMS="64;128" FLASHATTN_COMMIT=$(cat .ab/change_commit) AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_IMPLS=flashattn,flashattn_det AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd --head-dims 64,128" \
  timeout 260 scripts/ab $L/ab2 .ab/c1.tar > $L/ab2.log 2>&1
echo "ab2 rc=$? at $((SECONDS - t0)) s"; cat $L/ab2/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab2/tests.log | head -20
san() {  # tool, filter, limit
  FLASHATTN_GPU_TIER=quick timeout $3 compute-sanitizer --tool $1 build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter="$2" > $L/sanitizer_$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/sanitizer_$1.log | head -4
}
san memcheck 'CudaBackwardSm90.Varlen*:CudaBackwardSm90.LengthsOffTileMultiples' 40
san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 45
san synccheck 'CudaBackwardSm90.Deterministic*' 40
rm -rf $L/ab1/change/build.log $L/ab2/change/build.log
echo "done at $((SECONDS - t0)) s"
