#!/usr/bin/env bash
# Prepared in session 38 (not yet run; H200 only, exits at once on any other GPU): issues 4-6's grids under
# peers.py's interleaved rounds (31fd1d9) with each point's clocks (bench/clock_log.py), part A of two calls
# on one H200 lease: one build of every kernel the evidence needs (fwd / bwd sm90 for D 64 / 128 / 256 in
# bf16 and fp16, the KV-cache kernels), then the decode grid, the backward grid (with flashattn_det) and the
# forward grid, flashattn and cuDNN in one process each. Part B (../prepared-h200-evidence-b) reuses this
# build on the same machine: call it within the 30 s the machine stays warm.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 590).
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="fp16;bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90;kvcache_sm80" \
  device_build "$L/build" 260
device_peers "$L" decode 60 --op decode --impls flashattn,fa2,cudnn
device_peers "$L" bwd 120 --op bwd --impls flashattn,flashattn_det,cudnn
device_peers "$L" fwd 100 --op fwd --impls flashattn,cudnn
for n in decode bwd fwd; do [[ -f $L/$n.log ]] && sed -n '/^\[/p;/^ceilings/,$p;/^copy ceiling/,$p' "$L/$n.log" | head -60; done
echo "done at $((SECONDS - device_t0)) s"
