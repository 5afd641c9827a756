#!/usr/bin/env bash
# Session 47, call 2 (any 132-SM GPU, ~420 s): the backward's key-block pairs at D 128 with the writers in both
# roles at once (06d6c4b: each sends its peer's dQ block before it waits to sum its own, and hands the sent
# block back once its copy landed) against main (b2b0374), on the D 128 full grid where they run. Call 1 ran
# the first form (f996a82) at 0.45-0.63x: its writers took the blocks in turn, so a step's two copies, sums
# and reduce-adds ran one after another across the pair. Two experiments (wrong dQ) beside it say where the
# time goes: c1 = 643fb5f, the change without the owner's sum; c2 = ad5d93f, no copy, sum or peer wait (the
# pair's halved reduce-adds alone, the protocol's bound). Predicted: change 0.97-1.02 (the sum, one warp at
# 24 registers, ~0.5 us of a ~2.3 us step, now under the step rather than chained twice); c2 1.02-1.04 (call
# 3 of s46 bounded halving the reduce-adds at 1.020-1.052 with Q / dO halved too). Keep the change if its
# cells' geometric mean >= 1.005, no cell < 0.99, its tests, memcheck and synccheck pass.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive b2b0374 -o .ab/base.tar -- . ':!bench/results'
#   git archive 643fb5f -o .ab/c1.tar -- . ':!bench/results'; git archive ad5d93f -o .ab/c2.tar -- . ':!bench/results'
#   gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=5 AB_TESTS_GATE=0 \
  AB_TESTS='CudaBackwardSm90.KeyBlockPairsSumTheirDq:CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.ABatchOf60IsStableAcrossReruns' \
  AB_TESTS_TIMEOUT=120 AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10" \
  device_ab "$L/ab" 400 .ab/c1.tar .ab/c2.tar
for tool in memcheck synccheck racecheck; do
  left=$((470 - SECONDS + device_t0))
  ((left > 30)) || break
  FLASHATTN_HEAD_DIMS="128" FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_FILTER='CudaBackwardSm90.KeyBlockPairsSumTheirDq' \
    FLASHATTN_SANITIZER_TIMEOUT=$((left > 60 ? 55 : left - 5)) scripts/gpu "$L/$tool" | tail -2
done
echo "done at $((SECONDS - device_t0)) s"
