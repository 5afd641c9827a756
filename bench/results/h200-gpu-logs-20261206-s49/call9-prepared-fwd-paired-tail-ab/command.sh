#!/usr/bin/env bash
# Prepared in session 49 (not run). The sm90 forward's paired order with its partial last round pair (or it
# and the whole round pair before it, whichever the host counts as better balanced) dealt as single tiles,
# longest first in the snake (4a50825), against main without it (its parent, eebe6a8). The static work model
# (tests/cpu TheLastPartialRoundOfPairsDealsSingleTilesLongestFirst) puts the largest CTA share of key tiles,
# causal, at: D 128 S 512 40 -> 39 (+2.6%), S 1k 72 -> 70 (+2.9%), S 2k 136 -> 133 (+2.3%); D 64 S 512 80 -> 78
# (+2.6%), S 1k 144 -> 141 (+2.1%), S 4k 253 -> 248 (+2.0%); D 256 S 1k 36 -> 35 (+2.9%); GQA B 8 S 4k
# 1,056 -> 1,025 (+3.0%). The model is an upper bound: the backward's partial last round, 3.1% in the same
# model, measured ~1% (docs/PERF.md, backward session 38: idle SMs leave the rest power and the CTAs drift).
# Predicted: those cells +0.3-1.5%; D 64 S 2k (11 tiles of 192 rows: odd, no tail), D 256 S 512 (no gain in
# the model), full masks and unpaired causal cells (D 128 S >= 4k, D 256 S >= 2k, GQA B 1) unchanged: the
# same order. Keep if the changed cells' geomean >= 1.003, no cell < 0.99, CudaForwardSm90.* pass.
# Prepare: git checkout 4a50825 -- src/cuda/sm90/tile_scheduler_sm90.hpp tests/cpu/test_tile_scheduler_sm90.cpp
# (the working tree is the change; git reset, and restore both files after); .ab/base.tar.gz from main
# (git archive HEAD -o .ab/base.tar -- . ':!bench/results', gzip); git rev-parse HEAD > .commit; carry
# [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (~420 s).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=120 \
  AB_PEERS_ARGS="--op fwd --masks causal --seqlens 512,1024,2048,4096; --op fwd --grid gqa-long --seqlens 4096,8192 --samples 10" \
  device_ab "$L/ab" 400
echo "done at $((SECONDS - device_t0)) s"
