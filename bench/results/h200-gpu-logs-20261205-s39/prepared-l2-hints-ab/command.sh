#!/usr/bin/env bash
# Prepared in session 39 (not yet run; any GPU with 132 SMs and 50 MB of L2, an H100 is fine for the ratios):
# the sm90 forward and backward with L2 policies on their TMA loads (71db63a): forward K and V evict-last
# (every query tile of a head, and with GQA of its kv head's query heads, reads them again), Q evict-first
# (read by its own tile alone); backward Q and dO evict-last (read again by the CTA of every key block that
# sees them), K and V evict-first (one tile). Until now every load carried CuTe's default EVICT_NORMAL.
# FlashAttention-3 loads K with EVICT_LAST in its forward and Q / LSE with EVICT_LAST in its backward.
# Why: where the reused operand does not stay in L2 the kernels pay DRAM traffic, and under the power cap
# (docs/PERF.md, "Backward, session 38") its energy: GQA-long backward at S 16k / 32k hit L2 at 90 / 88%
# against MHA's 97% with 4x the DRAM traffic; the forward's K / V of one kv head take 32 MB of the 50 MB L2
# at S 64k and 64 MB at 128k.
# Predicted: GQA-long backward +1-3% from 32k (the cells short of 1.10x cuDNN), the forward's 64k / 128k +1-2%,
# the paper grid at D 128 within +-1% (its working sets fit L2 already). A loss would mean evict-last lines
# crowd out the dQ accumulator (backward) or the next head's K / V (forward).
# This call: scripts/ab, change = main + 71db63a, base = main, two runs a side, four grids: GQA-long forward and
# backward, the D 128 paper grid forward and backward; the change's CudaForwardSm90 / CudaBackwardSm90 tests
# first (quick tier, gate). Keep per op (the forward and backward hunks are separable) if that op's GQA-long
# geometric mean is >= 1.01 and no D 128 cell is below 0.99.
# Prepare on main: git cherry-pick 71db63a; rm -rf .ab && mkdir .ab;
#   git archive HEAD~1 -o .ab/base.tar -- . ':!bench/results'; gzip .ab/base.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 560).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TESTS='CudaForwardSm90.*:CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=200 \
  AB_PEERS_ARGS="--op fwd --grid gqa-long; --op bwd --grid gqa-long; --op fwd --head-dims 128; --op bwd --head-dims 128" \
  device_ab "$L/ab" 540
cat "$L/ab/ab.txt"
echo "done at $((SECONDS - device_t0)) s"
