#!/usr/bin/env bash
# Session 63, for an H200 only (~200 s; exits at once on any other GPU): issue 6's decode grid on main (the
# copies without a policy operand unless evict-first, 0116cf0), flashattn and cuDNN alone in the process
# under peers.py's interleaved rounds, only the decode kernels built; the evidence run to follow
# ../decode-h200-ab/ once it confirms the keep.
# Prepare: .ab/cutlass.tgz, .commit; carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 150
device_peers "$L" decode 80 --op decode --impls flashattn,cudnn
sed -n '/^copy ceiling/,$p' "$L/decode.log" | head -30
echo "done at $((SECONDS - device_t0)) s"
