#!/usr/bin/env bash
# Prepared in session 49 (not run). The sm90 forward's paired order with its partial last round of pairs dealt
# as single tiles, longest first in the snake (3e6e49c), against main without it (3e6e49c's parent). The
# static work model (tests/cpu TheLastPartialRoundOfPairsDealsSingleTilesLongestFirst) puts the largest CTA
# share of key tiles at: causal S 512 D 128 40 -> 39 (+2.6%), D 64 80 -> 79 (+1.3%), S 1k D 128 72 -> 71
# (+1.4%), D 256 36 -> 35 (+2.9%), S 2k D 64 / 128 +0.4 / +0.7%, GQA B 8 S 4k 1,056 -> 1,043 (+1.2%), so
# predicted: those cells +0.5-2.5% (the model is an upper bound: CTAs drift out of step), full masks and
# unpaired causal cells (S >= 4k at D 128, S >= 2k at D 256, GQA B 1) unchanged (the same order).
# Keep if the causal geomean >= 1.005 with D 128 S 512 >= 1.01, no cell < 0.99, CudaForwardSm90.* pass.
# Prepare: git checkout 3e6e49c -- src/cuda/sm90/tile_scheduler_sm90.hpp tests/cpu/test_tile_scheduler_sm90.cpp
# (the working tree is the change; unstage and restore after); .ab/base.tar.gz from main (git archive HEAD
# ... ':!bench/results'); git rev-parse HEAD > .commit; carry [".ab", "third_party/cutlass", ".commit"]; run
# through ../../h200-gpu-logs-20261204-s28/wrap.sh (~420 s).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=120 \
  AB_PEERS_ARGS="--op fwd --masks causal --seqlens 512,1024,2048,4096; --op fwd --grid gqa-long --seqlens 4096,8192 --samples 10" \
  device_ab "$L/ab" 400
echo "done at $((SECONDS - device_t0)) s"
