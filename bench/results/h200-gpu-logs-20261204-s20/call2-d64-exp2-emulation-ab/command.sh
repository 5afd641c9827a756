#!/usr/bin/env bash
# Session 20 call 2 (fresh machine): A/B of cd4fc8d (D 64 forward: one score in 8 takes its exponential from
# the FMA pipe, core::exp2_poly) against b340d8f on the D 64 forward grid (full and causal, S 512-16k), bf16
# and fp16 kernels built, with the change's CudaForwardSm90 tests (full tier) while the base builds; then the
# same kernels with one score in 4 emulated (rebuilt in place) against one in 8, interleaved, two runs each,
# and that build's forward sweep (quick tier).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64" FLASHATTN_DTYPES="bf16;fp16" AB_CHANGE_STEPS=build AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--head-dims 64" timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
cp -r build-gpu/python /tmp/every8
sed -i 's/kD64EmulatedExp2Every = 8;/kD64EmulatedExp2Every = 4;/' src/cuda/sm90/tile_fwd_sm90.hpp
timeout 150 cmake --build build-gpu -j 16 --target flashattn_torch flashattn_tests_gpu > $L/build_every4.log 2>&1
echo "every-4 build rc=$? at $((SECONDS - t0)) s"
mkdir -p $L/e4
for run in 1 2; do
  PYTHONPATH=build-gpu/python FLASHATTN_COMMIT=$FLASHATTN_COMMIT+every4 python3 bench/peers.py --impls flashattn \
    --head-dims 64 --json $L/e4/every4_$run.json > $L/e4/every4_$run.log 2>&1
  PYTHONPATH=/tmp/every8 python3 bench/peers.py --impls flashattn --head-dims 64 --json $L/e4/every8_$run.json \
    > $L/e4/every8_$run.log 2>&1
done
python3 bench/ab_compare.py --a $L/e4/every4_*.json --b $L/e4/every8_*.json | tee $L/e4/ab.txt
echo "every-4 runs at $((SECONDS - t0)) s"
FLASHATTN_GPU_TIER=quick timeout 60 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm90.SweepMatchesOracle' \
  > $L/e4/tests_quick.log 2>&1
echo "every-4 sweep rc=$? at $((SECONDS - t0)) s"; grep -E "PASSED|FAILED" $L/e4/tests_quick.log | head -3
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
