#!/usr/bin/env bash
# Prepared in session 40 (not yet run: ten machine starts failed that session; any GPU with 132 SMs, ratios
# only): two sm90 candidates against one base in one call, which replaces session 38's prepared-bwd-d128-dq-red-ab
# (540 s) and session 39's prepared-l2-hints-ab (560 s): one base build and one set of base runs for both:
#  - the change (working tree) = main + 2aeb1d0: the D 64 / 128 backward's dQ by the consumers' vector
#    reductions (session 38's prepared-bwd-d128-dq-red-ab; predicted +3-8% at D 128, less at D 64);
#  - candidate c1 = main + 71db63a: L2 policies on the sm90 TMA loads (session 39's prepared-l2-hints-ab;
#    predicted GQA-long backward +1-3% from 32k, forward 64k / 128k +1-2%).
# Grids, most important first (a timeout cuts the last): the D 64 / 128 backward paper grid (full and causal);
# the GQA-long backward at S 16k-64k; the GQA-long forward at S 32k-128k, where the change runs the base's
# forward code, so its ratio there is this call's noise. The long grids take 10 samples a point (kernels of
# 0.05-0.6 s). Gate: each side's CudaBackwardSm90 / CudaForwardSm90 tests (quick tier). Then memcheck of the
# change's new path (off-tile and varlen tests: the reductions' row guard).
# Keep: dq-red per head dim if >= 1.02 with no cell below 0.99; L2 policies per op if that op's GQA-long
# geometric mean is >= 1.01 and the backward's D 128 cells stay >= 0.99.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git worktree add -q --detach /tmp/l2 HEAD && git -C /tmp/l2 cherry-pick 71db63a &&
#     git -C /tmp/l2 archive HEAD -o "$PWD/.ab/l2.tar" -- . ':!bench/results' && git worktree remove --force /tmp/l2
#   git cherry-pick 2aeb1d0; gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 560).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=6 \
  AB_TESTS='CudaBackwardSm90.*:CudaForwardSm90.*' AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op bwd --head-dims 64,128; --op bwd --grid gqa-long --seqlens 16384,32768,65536 --samples 10; --op fwd --grid gqa-long --seqlens 32768,65536,131072 --samples 10" \
  device_ab "$L/ab" 470 .ab/l2.tar
FLASHATTN_HEAD_DIMS="64;128" device_memcheck "$L/memcheck" \
  'CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.LengthsOffTileMultiples' \
  $((540 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
