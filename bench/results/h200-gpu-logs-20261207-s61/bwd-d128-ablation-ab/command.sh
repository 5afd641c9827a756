#!/usr/bin/env bash
# Prepared in session 60 (not yet run; ~330 s, any 132-SM GPU; on an H200 it runs issues 4-6's evidence
# grids on main instead): which part of 944c323 gained. 944c323 made three changes to the D 128 backward at
# once: dQᵀ = Kᵀ·dSᵀ (dq_transposed), dS computed before dV is issued, and Sᵀ / dPᵀ cleared before their
# wgmmas (dv_after_ds). Measured together 1.015-1.030 over the form before (session 60). Here, against main:
# the change (the working tree) = da4035f, the transposed dQ alone (dV issued early, no clears; 7,928 SASS
# instructions); c1 = 3d295db, dS before dV and the clears alone, with dQ = dS·K as before (8,008
# instructions; main 7,976, the form before 8,800). All have main's spills (152 / 212). Expected: one of them
# near 1.00 and the other within 0.5% of main. Whichever is below main by more than the noise is the part
# that gains; if both are within it, the gain needs both.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git archive 3d295db -o .ab/order.tar -- . ':!bench/results'; gzip .ab/*.tar
#   tar czf .ab/cutlass.tgz -C third_party/cutlass include; git rev-parse da4035f > .commit
#   git cherry-pick --no-commit da4035f (restore afterwards: git checkout HEAD -- src)
#   carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 400).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_evidence_on_h200
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=6 AB_TESTS_TIMEOUT=90 \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.LengthsOffTileMultiples' \
  AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10; --op bwd --grid gqa-long --seqlens 4096,8192,32768 --samples 10" \
  device_ab "$L/ab" 380 .ab/order.tar
echo "done at $((SECONDS - device_t0)) s"
