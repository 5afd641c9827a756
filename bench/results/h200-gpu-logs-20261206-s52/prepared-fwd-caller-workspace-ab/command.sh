#!/usr/bin/env bash
# Prepared in session 52 (not run; any GPU with 132 SMs, ~500 s). The forward's split-tail workspace from the
# caller, against main, on the full-mask grid; two candidates in one scripts/ab call (one base build and
# base runs). The lead (docs/PERF.md, "Session 52"): main's cut tiles take their workspace (8.8 MB at D 128,
# 17.6 MB at D 256) from cudaMallocAsync every call, and the pool unmaps it at every synchronisation, so each
# timed call maps it afresh: a cost constant in S and proportional to the bytes, as session 51 measured the
# fixup (~10 / ~20-25 us at D 128 / 256). The backward gained 54% at S 512 from the same change.
# - Change (the working tree), 9ac4ec9: ForwardArgs::workspace and forward_workspace_size(); the torch op
#   passes a buffer from PyTorch's caching allocator. The gate stays at 4,096 keys. Predicted, if the
#   mapping is the cost: the cells from 4k +0.5-3% (D 256 S 4k the most: ~20 us of ~770), below 4k unchanged.
# - c1 (.ab/all_lengths.tar.gz), 812b515: the same with the stream at every key length. Predicted: the short
#   cells' tail saving (D 128 S 1k / 2k and D 64 S 1k / 2k +1-3%) now above the remaining fixup; D 256 S 512
#   the riskiest (a ~3 us saving). Its GPU test still expects 4,095 keys to cut nothing and fails there
#   (expected; the timing runs without the gate).
# Keep the change if the cells from 4k have a geomean >= 1.003 and none < 0.99 and its tests pass; keep c1
# instead (with the gate set from its cells) if it beats the change where it differs.
# Prepare: git checkout 9ac4ec9 -- src tests include python README.md; git reset -q (restore after: the new
# files src/core/forward_workspace.cpp, src/core/fwd_split_tail_workspace.hpp and
# tests/cpu/test_fwd_split_tail_workspace.cpp are removed by hand); .ab/base.tar.gz from main (git archive
# HEAD -o .ab/base.tar -- . ':!bench/results', gzip) and .ab/all_lengths.tar.gz from 812b515 alike; git
# rev-parse HEAD > .commit; carry [".ab", "third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 580).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=6 AB_TESTS_TIMEOUT=300 \
  AB_TESTS='CudaForwardSm90.CutTilesTakeTheCallersWorkspace:CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas' \
  AB_PEERS_ARGS="--op fwd --masks full" device_ab "$L/ab" 550 .ab/all_lengths.tar.gz
echo "done at $((SECONDS - device_t0)) s"
