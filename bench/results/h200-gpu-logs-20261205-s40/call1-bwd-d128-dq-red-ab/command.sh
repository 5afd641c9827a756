#!/usr/bin/env bash
# Session 40, last try with the 333 s of device time the failed starts left (nothing else fits them): session 38's
# dQ by vector reductions (2aeb1d0, prepared-bwd-d128-dq-red-ab has the why) at D 128 alone, in 240 s:
# change = main + 2aeb1d0, base = main, both built for D 128 only, the D 128 backward paper grid (full and causal),
# two runs a side; gate: the change's CudaBackwardSm90 tests (quick tier). No memcheck (no time). Keep D 128 if
# >= 1.02 with no cell below 0.99 and the tests pass; D 64 and memcheck wait for prepared-sm90-dqred-l2-ab.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results';
#   gzip .ab/base.tar; git cherry-pick 2aeb1d0; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 240).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=100 AB_PEERS_ARGS="--op bwd --head-dims 128" device_ab "$L/ab" 225
echo "done at $((SECONDS - device_t0)) s"
