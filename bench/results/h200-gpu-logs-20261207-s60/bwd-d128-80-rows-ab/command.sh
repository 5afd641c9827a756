#!/usr/bin/env bash
# Session 60, call 1 (~450 s, any 132-SM GPU; on an H200 it runs issues 4-6's evidence grids on main instead):
# the D 128 backward at 80 query rows a step (FlashAttention-3's full-mask tile; BwdTileSm90::dq_transposed
# and dv_after_ds), the working tree's commit, against its parent (.ab/base.tar.gz). Predicted from the
# shared-memory count (docs/PERF.md, backward session 13: 4.5 KB of Sᵀ / dPᵀ / dQ operands per 40 tensor
# cycles instead of 4 KB per 32) and a step's fixed cost carried by 25% more rows: full +3-7%, causal and
# GQA-long -2 ... +4% (80-row blocks cut the diagonal more finely, and 16 more registers of accumulators
# left ptxas 100 / 136 more bytes of spill, a few local accesses a step). Keep if the full cells' geomean
# >= 1.02 with none below 0.99 and the tests pass; gate to full masks if causal loses.
# Prepare: .ab/base.tar.gz (git archive of the parent), .ab/cutlass.tgz, .commit; carry [".ab", ".commit"];
# run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_evidence_on_h200
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10; --op bwd --grid gqa-long --seqlens 4096,8192,32768 --samples 10; --op bwd --head-dims 128 --masks causal --samples 10" \
  device_ab "$L/ab" 400
left=$((470 - SECONDS + device_t0))
((left > 60)) && device_memcheck "$L/memcheck" 'CudaBackwardSm90.LengthsOffTileMultiples' "$left"
echo "done at $((SECONDS - device_t0)) s"
