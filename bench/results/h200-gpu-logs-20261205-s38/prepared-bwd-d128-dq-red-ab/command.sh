#!/usr/bin/env bash
# Prepared in session 38 (not yet run; any GPU with 132 SMs, an H100 is fine for the ratio): the D 64 / 128
# backward with dQ added by the consumers' 8-byte vector reductions (2aeb1d0, BwdTileSm90::dq_by_red; 4f92d26
# was its D 128-only first form) instead of the shared-memory staging and the dQ writer's TMA reduce-add,
# outside deterministic runs. The two head dims' cells move with their own flag, so one A/B tells each. Why: by the
# model of docs/PERF.md ("Backward, session 38") the D 128 step moves ~370 KB through shared memory against
# ~2,560 tensor cycles, and the staging is 64 KB of it (written by the consumers, read by the TMA); an earlier
# ncu note (dq_staging_sm90.cuh) already had the kernel bound by shared-memory wavefronts. Risk: session 5's
# first kernel lost with per-thread dQ atomics (scalar, after waiting for every product); these are vector,
# issued as soon as dQ lands. Predicted: +3-8% at D 128 full and causal if the model holds (more at long S),
# less at D 64 (its staging is 32 KB of ~176 KB a step), a loss if the LSU path or L2's atomic units bind.
# This call: scripts/ab, the D 64 / 128 backward grid, two runs a side, change = main + 2aeb1d0, base = main; the
# change's CudaBackwardSm90.* tests first (quick tier, gate: the sweep against the oracle runs the new path,
# the deterministic reruns the writer's), then memcheck of the off-tile and varlen tests (the row guard),
# then the gqa-long backward of both sides at 16k / 32k if time is left. Keep if >= 1.02 with no cell below
# 0.99 and the tests pass, per head dim (a head dim that loses gets dq_by_red = false).
# Prepare on main: git cherry-pick 2aeb1d0; rm -rf .ab && mkdir .ab;
#   git archive HEAD~1 -o .ab/base.tar -- . ':!bench/results'; gzip .ab/base.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 540).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op bwd --head-dims 64,128" device_ab "$L/ab" 400
FLASHATTN_HEAD_DIMS="64;128" device_memcheck "$L/memcheck" \
  'CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.LengthsOffTileMultiples' \
  $((500 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
