#!/usr/bin/env bash
# Session 36, call 2 (prepared in session 35): where did D 256's backward lose ~3% between session 26's H200 grid
# (54ce1cd) and session 35's (5810aad)? D 256 ran 0.966-0.994x in 11 of 12 cells (causal 2k 1.012), cuDNN at 0.990-1.013x of
# its session 26 numbers; the one-CTA-per-tile grid (session 35 call 3, H100) measured 1.002 against the
# persistent one, so the persistent kernel is not it. This A/B times main against 54ce1cd itself, D 256 only,
# on one machine: if main is ~0.97 again, the cause is in the code between them (bisect next: 04b4a84^,
# cdb6692^); if ~1.0, session 35's grid met a slower machine or clock (1950 MHz against 1980).
# Prepare on main: rm -rf .ab && mkdir .ab && git archive 54ce1cd -o .ab/base.tar -- . ':!bench/results' &&
#   gzip .ab/base.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="256" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle' AB_TESTS_TIMEOUT=60 AB_TESTS_GATE=1 \
  AB_PEERS_ARGS="--op bwd --head-dims 256" timeout 400 scripts/ab "$L/ab" .ab/base.tar > "$L/ab.log" 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" "$L/ab.log"; cat "$L/ab/ab.txt"
rm -f "$L/ab/change/build.log"
echo "done at $((SECONDS - t0)) s"
