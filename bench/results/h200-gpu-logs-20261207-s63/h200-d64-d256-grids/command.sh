#!/usr/bin/env bash
# Session 63, for an H200 only (~420 s; exits at once on any other GPU): the paper grids of the backward and
# the forward at D 64 and 256, flashattn and cuDNN alone in the process (interleaved rounds), backward first.
# Their last H200 grids are session 37's; since then D 64's backward took the 128 x 128 tile (s61) and hands
# dQ over right after staging it (s62), both measured on H100s only. D 128 ran on an H200 in session 61 and
# its kernels have not changed since (s62's 9331410 left D 128's SASS identical).
# Prepare: .ab/cutlass.tgz, .commit; carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;256" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90" \
  device_build "$L/build" 220
device_peers "$L" bwd 110 --op bwd --head-dims 64,256 --impls flashattn,cudnn
device_peers "$L" fwd 80 --op fwd --head-dims 64,256 --impls flashattn,cudnn
for n in bwd fwd; do
  [[ -f $L/$n.log ]] && sed -n '/^ceilings/,$p' "$L/$n.log" | head -32
done
echo "done at $((SECONDS - device_t0)) s"
