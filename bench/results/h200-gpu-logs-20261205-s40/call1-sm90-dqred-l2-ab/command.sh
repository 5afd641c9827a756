#!/usr/bin/env bash
# Session 40 (any GPU with 132 SMs; ratios only): session 38's prepared-bwd-d128-dq-red-ab (its header says what
# and why), the D 64 / 128 backward's dQ by the consumers' vector reductions, cut to 300 s. This call first held
# the L2-policy candidate (71db63a) as a second side with the GQA-long grids (560 s); five failed machine starts
# (85-180 s of device time each) left 528 s, so it became the dQ reductions alone, as session 38 planned them,
# in 400 s; two more failures left 423 s, so it is D 128 alone in 300 s: change = main + 2aeb1d0, base = main,
# both built for D 128 only, the D 128 backward paper grid (full and causal), two runs a side; gate: the
# change's CudaBackwardSm90 tests (quick tier); memcheck of the off-tile and varlen tests (the reductions' row
# guard) only if time is left. Keep D 128 if >= 1.02 with no cell below 0.99 and the tests pass (D 64 waits).
# Prepare on main: git cherry-pick 2aeb1d0; rm -rf .ab && mkdir .ab;
#   git archive main -o .ab/base.tar -- . ':!bench/results'; gzip .ab/base.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 300).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op bwd --head-dims 128" device_ab "$L/ab" 250
FLASHATTN_HEAD_DIMS="128" device_memcheck "$L/memcheck" \
  'CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.LengthsOffTileMultiples' \
  $((295 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
