#!/usr/bin/env bash
# Prepared in session 29 (no machine was lent after its first call): not yet run.
# The split-tail backward candidate 9eb2e7a against main on the full-attention grid (D 64 / 128 / 256, bf16;
# causal calls split nothing): the last (tiles mod SMs) tiles' walks in 2-4 parts, added into each other in
# order through the workspace. Predicted +1.5-2% in every cell (bench/bwd_schedule_sim.py --tail: 1.031x
# the ideal -> 1.010x at D 128 / 256, 1.007x at D 64). CudaBackwardSm90.* gates the timing (its small
# full-attention cases have fewer tiles than SMs, so they split: 2 parts at 200 query rows, 4 at 1023);
# bench/peers.py verifies every cell's gradients. Then memcheck and synccheck of the sweep (partials'
# indexing, the flag's barriers).
# Prepare on main, from the repository root:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' && gzip .ab/base.tar &&
#   git cherry-pick 9eb2e7a && git rev-parse HEAD > .ab/change_commit
# Carry [".ab", "third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 585).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn \
  AB_TESTS='CudaBackwardSm90.*' AB_TESTS_TIMEOUT=150 AB_TESTS_GATE=1 \
  AB_PEERS_ARGS="--op bwd --head-dims 64,128,256 --masks full" \
  timeout 430 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "OK|PASSED|FAILED|tests," $L/ab/tests*.log | head -12
rm -rf $L/ab/change/build.log
grep -q "PASSED" $L/ab/tests.log || { echo "the change's tests did not pass: nothing more"; exit 0; }
for tool in memcheck synccheck; do
  FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_TIMEOUT=60 FLASHATTN_SANITIZER_FILTER='CudaBackwardSm90.SweepMatchesOracle' \
    scripts/gpu $L/$tool | tail -2
done
echo "done at $((SECONDS - t0)) s"
