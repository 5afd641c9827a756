#!/usr/bin/env bash
# Session 26 call 3: two backward A/Bs (default rows; bf16):
#   A/B 1: D 64 products ahead with consume / consume_keys not forced inline (58ec2d1, in .ab/c1_commit;
#          call 2 measured the forced-inline build) against 6296f9e, D 64 + 128 grid, from an extracted
#          tree of 58ec2d1 (D 128 expected unchanged: its SASS differs in the prologue only);
#   A/B 2: a fifth Q / dO stage at D 64 (working tree, .ab/change_commit) against 58ec2d1, D 64 grid,
#          with CudaBackwardSm90.* at the quick tier while the base builds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
root=$PWD
export FLASHATTN_CUTLASS_DIR=$root/third_party/cutlass/include FLASHATTN_HEAD_DIMS="64;128" AB_IMPLS=flashattn
gunzip -f .ab/base.tar.gz .ab/c1.tar.gz
c1=$(mktemp -d)/c1; mkdir -p $c1 && tar xf .ab/c1.tar -C $c1
(cd $c1 && FLASHATTN_COMMIT=$(cat $root/.ab/c1_commit) AB_CHANGE_STEPS=build AB_PEERS_ARGS="--op bwd --head-dims 64,128" \
  timeout 250 scripts/ab $L/ab1 $root/.ab/base.tar > $L/ab1.log 2>&1)
echo "ab1 rc=$? at $((SECONDS - t0)) s"; cat $L/ab1/ab.txt
FLASHATTN_COMMIT=$(cat .ab/change_commit) AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd --head-dims 64" \
  timeout 220 scripts/ab $L/ab2 .ab/c1.tar > $L/ab2.log 2>&1
echo "ab2 rc=$? at $((SECONDS - t0)) s"; cat $L/ab2/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab2/tests.log | head -20
rm -rf $L/ab1/change/build.log $L/ab2/change/build.log
echo "done at $((SECONDS - t0)) s"
