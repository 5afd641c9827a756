#!/usr/bin/env bash
# Session 36, call 4: D 256's backward one CTA per tile again, on a one-tile kernel body. Call 3 bisected the
# 2-4% D 256 lost since session 26 to the persistent kernel (04b4a84 0.978 against 54ce1cd, its parent 86e7306
# 1.006); session 35's a709e97 (one CTA per tile, still on the persistent body: tile ring, cross-tile state,
# Q / dO before K / V) measured 1.002, so the body is what costs. Against main (1dfbc56, base): c1 = ea9ec97
# (the one-tile body: no ring, no counter, no cross-tile state; 100 / 212 bytes of spill against main's 252 /
# 308), change = 835cbe6 (c1 + K and V loaded before the first Q and dO, as in 86e7306). Predicted: change
# ~1.02-1.04 (86e7306's 1.006 against 54ce1cd over main's 0.982), c1 between. D 256 only, the change's and
# c1's CudaBackwardSm90.SweepMatchesOracle first (gate), one run a side (call 3's same-version runs agreed
# within 0.5%; the device time left allows one).
# Prepare on main at 835cbe6: rm -rf .ab && mkdir .ab; git archive 1dfbc56 -o .ab/base.tar -- . ':!bench/results';
#   git archive ea9ec97 -o .ab/c1.tar -- . ':!bench/results'; gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 250).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="256" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build AB_TREE_JOBS=5 AB_RUNS=1 \
  FLASHATTN_GPU_TIER=quick AB_TESTS='CudaBackwardSm90.SweepMatchesOracle' AB_TESTS_TIMEOUT=40 AB_TESTS_GATE=1 \
  AB_PEERS_ARGS="--op bwd --head-dims 256" timeout 240 scripts/ab "$L/ab" .ab/base.tar .ab/c1.tar 2>&1 |
  tee "$L/ab.log" | grep -E "^(ab:|[0-9]|rows|D |geometric)"
echo "ab rc=${PIPESTATUS[0]} at $((SECONDS - t0)) s"
rm -f "$L/ab/change/build.log"
echo "done at $((SECONDS - t0)) s"
