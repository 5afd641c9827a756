#!/usr/bin/env bash
# Prepared in session 29 (no machine was lent after its first call): not yet run. The cheapest way to the
# three backward candidates: one scripts/ab call, one base build and one set of base runs, on the whole
# backward grid (D 64 / 128 / 256, full and causal, bf16):
#   change (working tree): the D 64 deferred dQ hand-over (a0eddfe; D 64 cells only);
#   c1: the tile order in sections (8e13598; causal cells only);
#   c2: the split tail (9eb2e7a; full cells only).
# Each touches its own cells, so the one grid measures all three, the other cells being each one's control.
# Tests (a quick subset, each tree's own build): the sweep, the varlen causal rows, the batch-of-60 reruns;
# the change's gate the timing, a failing candidate is left out of it. The full suites and the sanitizers
# of what is kept belong to the next call, with the evidence grid (call2-…/command.sh).
# Prepare on main, from the repository root:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' &&
#   for c in 1:8e13598 2:9eb2e7a; do rm -rf /tmp/c${c%%:*} && git worktree add --detach /tmp/c${c%%:*} HEAD &&
#     (cd /tmp/c${c%%:*} && git cherry-pick ${c#*:} &&
#      git archive HEAD -o /work/main/.ab/c${c%%:*}.tar -- . ':!bench/results'); done &&
#   gzip .ab/*.tar && git cherry-pick a0eddfe && git rev-parse HEAD > .ab/change_commit
# Session 32 ran it as prepared and it timed out at 560 s before any timing (h200-gpu-logs-20261205-s32/call2-…):
# four trees of 15 TUs each built at once. Now every build compiles only the sm90 forward and backward
# (AB_FAMILIES; 400 of a tree's 910 compile-seconds), and the tarballs must come from a main that has
# FLASHATTN_KERNEL_FAMILIES (session 32 on); estimated ~400 s. If still short, drop c2 (-> a next call).
# Carry [".ab", "third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 585).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.ABatchOf60*' \
  AB_TESTS_TIMEOUT=90 AB_TESTS_GATE=1 AB_PEERS_ARGS="--op bwd --head-dims 64,128,256" \
  timeout 560 scripts/ab $L/ab .ab/base.tar .ab/c1.tar .ab/c2.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "PASSED|FAILED|tests," $L/ab/tests*.log | head -12
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
