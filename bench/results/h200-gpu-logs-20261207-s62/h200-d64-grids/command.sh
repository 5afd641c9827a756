#!/usr/bin/env bash
# Session 62, for an H200 only: the D 64 paper grids of the backward (the 128 x 128 tile of session 61,
# measured on H100s only so far) and the forward, flashattn and cuDNN alone in the process (interleaved
# rounds). ~300 s. The working tree is main; the decode change there does not touch these kernels.
# Prepare: .ab/cutlass.tgz, .commit; carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90" \
  device_build "$L/build" 200
device_peers "$L" bwd-d64 120 --op bwd --head-dims 64 --impls flashattn,cudnn
device_peers "$L" fwd-d64 90 --op fwd --head-dims 64 --impls flashattn,cudnn
for n in bwd-d64 fwd-d64; do
  [[ -f $L/$n.log ]] && sed -n '/^ceilings/,$p' "$L/$n.log" | head -30
done
echo "done at $((SECONDS - device_t0)) s"
