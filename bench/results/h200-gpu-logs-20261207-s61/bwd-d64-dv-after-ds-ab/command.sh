#!/usr/bin/env bash
# Prepared in session 60 (not yet run; ~300 s, any 132-SM GPU; on an H200 it runs issues 4-6's evidence
# grids on main instead): the D 64 backward with dS computed before dV is issued and Sᵀ / dPᵀ cleared before
# their wgmmas (BwdTileSm90::dv_after_ds, part of what gained 1.5-3% at D 128 in session 60), d5d4276 applied
# to the working tree, against main. D 64 issues the next step's Sᵀ and dPᵀ ahead (products_ahead 2), so
# its dV under the dS arithmetic may matter more than at D 128. Compiled: spills as main (156 / 208),
# 9,520 SASS instructions against 9,480. Predicted: -1 ... +1.5%. Keep if the D 64 grid's geomean >= 1.01
# with none below 0.99 and the tests pass. Better run after ../prepared-bwd-d128-ablation-ab/, which says
# whether the order is what gained at D 128.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   gzip .ab/base.tar; tar czf .ab/cutlass.tgz -C third_party/cutlass include; git rev-parse d5d4276 > .commit
#   git cherry-pick --no-commit d5d4276 (restore afterwards: git checkout HEAD -- src)
#   carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 380).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_evidence_on_h200
FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=90 \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.Deterministic*' \
  AB_PEERS_ARGS="--op bwd --head-dims 64 --samples 10" \
  device_ab "$L/ab" 360
echo "done at $((SECONDS - device_t0)) s"
