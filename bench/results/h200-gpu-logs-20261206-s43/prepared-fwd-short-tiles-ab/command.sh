#!/usr/bin/env bash
# Prepared in session 43 (not yet run; any GPU with 132 SMs, ratios only, ~480 s): three sm90 forward candidates,
# each against main in one scripts/ab call (one base build and base runs; change = the working tree, c1 and c2
# the tarballs). Compiled for both: 0 spills and no C75xx (wgmma serialisation) message at D 64/96/128/192/256.
# - Change, 1c31236: a block's first key tile (its causal diagonal or sequence end) computed over its left
#   half by a warpgroup none of whose rows keeps a key in the right half, HGMMA 64x64 instead of 64x128 on that
#   exposed first step, the right columns set to -inf after the wait (D 128, D 64's 128-row tile; off at D 64's
#   192-row tile and D 256, where ptxas serialised the wgmmas for want of registers, C7511). Predicted: causal
#   S 512 +1-3%, 1k +0.5-1.5% at D 64 / 128; full masks and S >= 2k within +-0.5%.
# - c1, ab6136e: at D 64, one score in 16 of a thread's row exponentiated on the FMA pipe (exp2_polynomial)
#   instead of MUFU.EX2, whose 16 results a clock and SM take as long as the step's tensor work. D 128's SASS is
#   identical, so its rows are the control. Predicted: D 64 +2-6% where the softmax is the longer phase (every
#   length), D 128 within +-0.5%.
# - c2, ab6136e + 8dc27eb: the same at 1 score in 8 (the issue-slot count puts the balance near 1 in 12: is 8
#   past it?). Predicted: below c1 if the count is right.
# Keep each whose target cells (causal S <= 1k at D 64 / 128; D 64) have a geometric mean >= 1.01 with no cell
# of either grid below 0.99 and whose tests pass.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git worktree add -q --detach /tmp/wexp HEAD && git -C /tmp/wexp cherry-pick ab6136e &&
#     git -C /tmp/wexp archive HEAD -o "$PWD/.ab/exp2_16.tar" -- . ':!bench/results' &&
#     git -C /tmp/wexp cherry-pick 8dc27eb && git -C /tmp/wexp archive HEAD -o "$PWD/.ab/exp2_8.tar" -- . \
#     ':!bench/results' && git worktree remove --force /tmp/wexp
#   gzip .ab/*.tar; git cherry-pick 1c31236 && git rev-parse HEAD > .commit   (after the call: git reset --hard HEAD~1)
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 520).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=120 \
  AB_PEERS_ARGS="--op fwd --head-dims 64,128; --op fwd --grid gqa-long --seqlens 8192,16384 --samples 10" \
  device_ab "$L/ab" 440 .ab/exp2_16.tar .ab/exp2_8.tar
FLASHATTN_HEAD_DIMS="64;128" device_memcheck "$L/memcheck" 'CudaForwardSm90.SweepMatchesOracle' \
  $((510 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
