#!/usr/bin/env bash
# Session 47, call 4 (~200 s; for an H200, where issue 6's decode grid has not run since session 37): call 3's
# first grid alone, for the device time left after three failed starts: issue 6's decode grid on main under
# peers.py's interleaved rounds, flashattn and cuDNN alone in the process (session 43: FA2 in the process
# costs our dense split cells up to 6%), only the decode kernels built.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 150
device_peers "$L" decode 80 --op decode --impls flashattn,cudnn
sed -n '/^copy ceiling/,$p' "$L/decode.log" | head -30
echo "done at $((SECONDS - device_t0)) s"
