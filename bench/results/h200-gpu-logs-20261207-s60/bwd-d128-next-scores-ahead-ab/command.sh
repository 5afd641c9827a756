#!/usr/bin/env bash
# Session 60, call 4 (~260 s on a fresh machine, for the device time left; any 132-SM GPU): D 128's next step's
# Sᵀ issued ahead (products_ahead 1), after this step's dQ is staged (its accumulator free again; issued right
# after dK, as D 64 does, ptxas serialised the wgmmas for want of registers), the working tree's commit
# against main (.ab/base.tar.gz). consume / consume_keys / zero_rows forced inline: ptxas otherwise kept the
# grown consumer as a call and serialised every wgmma across it (C7510). Spills 152 / 212 -> 208 / 352 bytes.
# Predicted: full +0.5-2% (Sᵀ under the dQ hand-over and dK's tail). Keep if the full cells' geomean >= 1.01,
# none below 0.99, the tests pass. Run through ../../h200-gpu-logs-20261204-s28/wrap.sh (250).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=60 \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.Deterministic*' \
  AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10" \
  device_ab "$L/ab" 235
echo "done at $((SECONDS - device_t0)) s"
