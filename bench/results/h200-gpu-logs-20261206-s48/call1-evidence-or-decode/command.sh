#!/usr/bin/env bash
# Session 48, call 1. On an H200: session 47's call 3 (issues 4-6's decode, GQA-long and D 128 grids on main,
# flashattn and cuDNN alone in the process; ~510 s). On any other GPU: issue 6's decode grid twice with
# flashattn and cuDNN alone (no FA2 in the process, which session 43 found costs our split cells up to 6%;
# no H100 grid has run that way yet), only the decode kernels built (~250 s).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 150
device_peers "$L" decode 80 --op decode --impls flashattn,cudnn
device_peers "$L" decode_run2 80 --op decode --impls cudnn,flashattn
for n in decode decode_run2; do sed -n '/^copy ceiling/,$p' "$L/$n.log" | head -30; done
echo "done at $((SECONDS - device_t0)) s"
