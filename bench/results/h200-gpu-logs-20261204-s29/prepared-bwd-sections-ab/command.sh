#!/usr/bin/env bash
# Prepared in session 29 (no machine was lent after its first call): not yet run.
# The backward's sectioned tile order against main on the causal grid (D 64 / 128 / 256, bf16; full attention
# takes sections of one pair, main's order, so it is left out): the change is 8e13598 (sections of pairs
# whose Q, dO and dQ rows fit 32 MiB), c1 the same with a 16 MiB budget (8e13598 + 746cc96). Predicted by
# bench/bwd_schedule_sim.py --sections: D 64 +3%, D 128 / 256 +5-7% at S <= 8k, ~0 at 16k (the model
# over-predicted the tail of few waves by ~1.5x in session 13). Tests: the causal sweep, varlen causal and
# the batch-of-60 reruns on both, gating the timing; memcheck of the change on the sweep.
# Prepare on main, from the repository root:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' &&
#   git worktree add --detach /tmp/c1 HEAD && (cd /tmp/c1 && git cherry-pick 8e13598 746cc96 &&
#     git archive HEAD -o /work/main/.ab/c1.tar -- . ':!bench/results') && gzip .ab/*.tar &&
#   git cherry-pick 8e13598 && git rev-parse HEAD > .ab/change_commit
# Carry [".ab", "third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 585).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.ABatchOf60*' \
  AB_TESTS_TIMEOUT=100 AB_TESTS_GATE=1 AB_PEERS_ARGS="--op bwd --head-dims 64,128,256 --masks causal" \
  timeout 480 scripts/ab $L/ab .ab/base.tar .ab/c1.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "OK|PASSED|FAILED|tests," $L/ab/tests*.log | head -12
rm -rf $L/ab/change/build.log
grep -q "PASSED" $L/ab/tests.log || { echo "the change's tests did not pass: nothing more"; exit 0; }
FLASHATTN_GPU_STEPS=memcheck FLASHATTN_SANITIZER_TIMEOUT=60 \
  FLASHATTN_SANITIZER_FILTER='CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.SweepMatchesOracle' \
  scripts/gpu $L/memcheck | tail -2
echo "done at $((SECONDS - t0)) s"
