#!/usr/bin/env bash
# Prepared in session 43 (not yet run; any GPU with 132 SMs, ratios only, ~330 s): the sm90 forward's first key
# tile over its left half only (1c31236, reverted until measured) against main. A causal block visits its
# diagonal tile first, alone (nothing overlaps its Q·Kᵀ), and with BLOCK_M = BLOCK_N the first warpgroup's 64
# rows keep no key in that tile's right half: its Q·Kᵀ there becomes one HGMMA 64x64 per k-slice instead of
# 64x128, and the right columns are set to -inf after the wait. D 128 (every regime) and D 64's 128-row
# short-key tile; off at D 64's 192-row tile and D 256 (register pressure: ptxas serialised the wgmmas, C7511).
# Compiled: 0 spills, no C75xx warnings at D 64/96/128/192/256. Predicted: causal S 512 +1-3%, 1k +0.5-1.5%
# (the exposed first product of a 1-4-step tile shortens by a quarter of a step for one warpgroup), S >= 2k
# and full masks within +-0.5% (controls: a full mask's first tile is whole when S is a multiple of 128).
# Keep if the causal S <= 1k cells of D 64 / 128 have a geometric mean >= 1.01 with no cell of either grid
# below 0.99 and the tests pass.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' &&
#   gzip .ab/base.tar && git cherry-pick 1c31236 && git rev-parse HEAD > .commit
#   (then, after the call: git reset --hard HEAD~1)
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 360).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=120 \
  AB_PEERS_ARGS="--op fwd --head-dims 64,128; --op fwd --grid gqa-long --seqlens 8192,16384 --samples 10" \
  device_ab "$L/ab" 300
FLASHATTN_HEAD_DIMS="64;128" device_memcheck "$L/memcheck" 'CudaForwardSm90.SweepMatchesOracle' \
  $((350 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
