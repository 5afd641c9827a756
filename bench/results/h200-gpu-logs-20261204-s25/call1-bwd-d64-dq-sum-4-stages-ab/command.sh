#!/usr/bin/env bash
# Session 25 call 1: two prepared D 64 backward candidates, each A/B'd against its parent on the D 64
# backward grid with the deterministic rows (AB_IMPLS=flashattn,flashattn_det):
#   A/B 1: the dQ blocks of both warpgroups summed in shared memory, one reduce-add (065a1d7, in
#          .ab/c1_commit) against 05df219, from an extracted tree of 065a1d7;
#   A/B 2: a fourth Q / dO stage on top of it (working tree, .ab/change_commit) against 065a1d7.
# D 64 kernels, bf16. The working tree's CudaBackwardSm90.* and CudaBackwardSm80.Deterministic* at the
# quick tier while its base builds; memcheck and synccheck of the deterministic Hopper test.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
root=$PWD
export FLASHATTN_CUTLASS_DIR=$root/third_party/cutlass/include FLASHATTN_HEAD_DIMS="64" AB_IMPLS=flashattn,flashattn_det
gunzip -f .ab/base.tar.gz .ab/c1.tar.gz
c1=$(mktemp -d)/c1; mkdir -p $c1 && tar xf .ab/c1.tar -C $c1
(cd $c1 && FLASHATTN_COMMIT=$(cat $root/.ab/c1_commit) AB_CHANGE_STEPS=build AB_PEERS_ARGS="--op bwd --head-dims 64" \
  timeout 260 scripts/ab $L/ab1 $root/.ab/base.tar > $L/ab1.log 2>&1)
echo "ab1 rc=$? at $((SECONDS - t0)) s"; cat $L/ab1/ab.txt
FLASHATTN_COMMIT=$(cat .ab/change_commit) AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_TESTS='CudaBackwardSm90.*:CudaBackwardSm80.Deterministic*' AB_PEERS_ARGS="--op bwd --head-dims 64" \
  timeout 260 scripts/ab $L/ab2 .ab/c1.tar > $L/ab2.log 2>&1
echo "ab2 rc=$? at $((SECONDS - t0)) s"; cat $L/ab2/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab2/tests.log | head -20
for tool in memcheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaBackwardSm90.Deterministic*' > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_$tool.log | head -4
done
rm -rf $L/ab1/change/build.log $L/ab2/change/build.log
echo "done at $((SECONDS - t0)) s"
