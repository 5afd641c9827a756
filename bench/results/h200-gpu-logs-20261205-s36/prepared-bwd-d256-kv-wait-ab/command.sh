#!/usr/bin/env bash
# Prepared in session 36 (not yet run): the rest of D 256's backward loss. Call 3 bisected the 2.2% D 256 lost
# since session 26 to the persistent kernel (04b4a84: 0.978 against 54ce1cd, its parent 86e7306 1.006); call 4
# kept the one-tile body with K / V first (835cbe6: 1.008 against main). Compiling 86e7306's structure piece by
# piece here then found the spills' cause: consume()'s kv_full wait for a tile without steps. Without it
# (fc9732e, for CTAs of one tile only, which have no next tile to keep the phase for) D 256 spills 32 / 28
# bytes like 86e7306 (main: 128 / 220, 9 LDL a step in the loop), and the consumers' step loop is 86e7306's
# SASS but for register numbers. Predicted +1-2% at D 256 (back to 86e7306's level).
# This call: scripts/ab, D 256 bwd grid, two runs a side: change = main + fc9732e, base = main (86e7306 ran
# 1.006 against 54ce1cd and main 0.982 before 835cbe6's 1.008, call 3 / 4: the level to reach is ~1.015); the
# change's CudaBackwardSm90.* tests at D 256 first (quick tier, gate), including the varlen rows without keys
# and window cases whose key blocks have no steps; then, if time is left, memcheck of those. Keep fc9732e if
# the change is >= 1.005 with no cell below 0.99 and the tests pass, and lower src/cuda/spill_budget.txt's
# D 256 line to 32 / 28.
# Prepare on main: git cherry-pick fc9732e; rm -rf .ab && mkdir .ab;
#   git archive HEAD~1 -o .ab/base.tar -- . ':!bench/results'; gzip .ab/base.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="256" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build AB_TREE_JOBS=8 \
  FLASHATTN_GPU_TIER=quick AB_TESTS='CudaBackwardSm90.*' AB_TESTS_TIMEOUT=90 AB_TESTS_GATE=1 \
  AB_PEERS_ARGS="--op bwd --head-dims 256" timeout 330 scripts/ab "$L/ab" .ab/base.tar 2>&1 |
  tee "$L/ab.log" | grep -E "^(ab:|[0-9]|rows|D |geometric)"
echo "ab rc=${PIPESTATUS[0]} at $((SECONDS - t0)) s"
grep -E "^\[  (     OK|FAILED|  SKIPPED) \]" "$L/ab/tests.log" | head -20
left=$((400 - SECONDS + t0))
((left > 40)) && FLASHATTN_GPU_STEPS=memcheck FLASHATTN_HEAD_DIMS="256" \
  FLASHATTN_SANITIZER_FILTER='CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.LengthsOffTileMultiples' \
  FLASHATTN_SANITIZER_TIMEOUT=$((left - 10)) scripts/gpu "$L/memcheck" | tail -2
rm -f "$L/ab/change/build.log"
echo "done at $((SECONDS - t0)) s"
