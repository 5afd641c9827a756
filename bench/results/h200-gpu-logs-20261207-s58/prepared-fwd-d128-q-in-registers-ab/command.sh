#!/usr/bin/env bash
# Prepared in session 58 (not run: nine starts in a row failed after call 1; ~330 s on a fresh machine). On
# an H200: issues 4-6's evidence grids on main instead (device_evidence_on_h200). Elsewhere this A/B:
# 8a947d0 (D 128's short-key tile reads Q into registers once per tile and issues Q·Kᵀ as an RS wgmma,
# FwdTileSm90::q_in_registers; reverted in 47b354e until measured) against main.
# Why: the GQA-long cells from 32k run under the power cap (session 43: clock median 1425-1710 MHz), where
# energy per FLOP sets the TFLOP/s; Q in registers takes 16 of a warpgroup-step's 80 KB of shared-memory
# operand reads away. Cost: 32 registers a thread, 84-88 bytes spilled (three local loads a step on the
# unmasked path, the rest in the ALiBi mask path), an ldmatrix of the warpgroup's Q (16 KB) at each tile's
# start. The unmasked step is 478 SASS instructions against main's 498 (Q's descriptors no longer built).
# Predicted: GQA-long 32k-128k +1-2%, causal 16k +0.5-1%, the short cells (not power-capped) within 1%.
# Keep it if the GQA-long 32k-128k geomean reads >= 1.01, no cell reads below 0.99, and the tests pass.
# Prepare:
# - The working tree: main + git diff 8a947d0~1 8a947d0 (git apply; restore after: git checkout HEAD -- src).
# - .ab/base.tar.gz: git archive HEAD -o .ab/base.tar -- . ':!bench/results'; gzip.
# - .ab/cutlass.tgz: tar czf .ab/cutlass.tgz -C third_party/cutlass include.
# - git rev-parse HEAD > .commit; carry [".ab", ".commit"]; run through
#   ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
source scripts/device-call-lib.sh
device_evidence_on_h200
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90" AB_RUNS=3 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=200 \
  AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--op fwd --grid gqa-long --seqlens 32768,65536,131072; --op fwd --head-dims 128 --masks causal --seqlens 512,2048,16384; --op fwd --head-dims 128 --masks full --seqlens 1024; --op fwd --grid gqa-long --seqlens 4096" \
  device_ab "$L/ab" 390
echo "done at $((SECONDS - device_t0)) s"
