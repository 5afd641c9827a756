#!/usr/bin/env bash
# Session 44, call 3 (any 132-SM GPU, ~300 s): how many of a thread's 32 scores per row D 64's short-key 128x128
# tile should exponentiate on the FMA pipe. Call 1 measured 1 in 16 (2 columns) on both D 64 tiles: +1.2 ...
# +4.1% on the 128x128 tile's cells (S <= 1k), -1.1 ... -2.6% on the 192x96 tile's; 1 in 8 (4 columns) lost
# on both. The change, 6e60d82 (main), keeps 1 in 16 on the 128x128 tile only (the other two D 64 kernels'
# SASS is identical to the base's); c1 takes 1 in 32 (1 column), c2 1 in 10 (3 columns: 9, 19, 29). Base: main
# before the exponentials (f303709). Predicted: the change +1-4% at S <= 1k and within noise from S 2k; c1
# about half the change's gain; c2 between the change and call 1's 1 in 8.
# Prepare: rm -rf .ab && mkdir .ab && git archive f303709 -o .ab/base.tar -- . ':!bench/results'
#   for p in 32 10; do git archive tmp$p -o .ab/p$p.tar -- . ':!bench/results'; done
#   gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' AB_TESTS_TIMEOUT=120 AB_RUNS=3 \
  AB_PEERS_ARGS="--op fwd --head-dims 64" device_ab "$L/ab" 300 .ab/p32.tar .ab/p10.tar
echo "done at $((SECONDS - device_t0)) s"
