#!/usr/bin/env bash
# Session 45, call 5 (any 132-SM GPU, ~230 s): call 4's cluster pairs again, with the consumers' K / V stage
# release as one predicated arrive. Call 4 ran 0.980 on GQA-long (paired) and 0.92-1.00 on the D 64 / 128
# MHA cells, which run unpaired on the same kernels (D 256's kernels, unchanged, 0.990-1.002): the release
# there was a run-time branch between the wait for S and the softmax (BSSY / BSYNC regions in the step's
# SASS), now a predicated SYNCS.ARRIVE like main's. Predicted: the unpaired cells back to 1.00 +- noise if
# the branch was the cost; GQA-long then shows what the pairs themselves gain or cost. Base: 8b5de29.
# Prepare: rm -rf .ab && mkdir .ab && git archive 8b5de29 -o .ab/base.tar -- . ':!bench/results';
#   gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 \
  AB_TESTS='CudaForwardSm90.GqaQueryHeadPairsShareTheirKvLoads:CudaForwardSm90.SweepMatchesOracle' \
  AB_TESTS_TIMEOUT=90 \
  AB_PEERS_ARGS="--op fwd --grid gqa-long --seqlens 4096,8192,16384,131072 --samples 10; --op fwd --head-dims 64,128 --seqlens 512,2048,16384" \
  device_ab "$L/ab" 215
echo "done at $((SECONDS - device_t0)) s"
