#!/usr/bin/env bash
# Prepared in session 61 (not yet run; ~500 s; meant for an H200, where issues 4 and 5 ask for their grids):
# the paper grids of the forward and the backward at D 64, 128 and 256, flashattn and cuDNN alone in the
# process (interleaved rounds), backward first: D 64's backward took the 128 x 128 tile in session 61
# (H100 only so far), and the last H200 grids of D 64 / 256 are session 37's. Session 61's call 5 ran D 128 and
# GQA-long on an H200 (evidence-grids-h200/).
# Prepare on main: rm -rf .ab && mkdir .ab && tar czf .ab/cutlass.tgz -C third_party/cutlass include
#   git rev-parse HEAD > .commit; carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90" \
  device_build "$L/build" 260
device_peers "$L" bwd 150 --op bwd --impls flashattn,cudnn
device_peers "$L" fwd 100 --op fwd --impls flashattn,cudnn
for n in bwd fwd; do
  [[ -f $L/$n.log ]] && sed -n '/^ceilings/,$p' "$L/$n.log" | head -45
done
echo "done at $((SECONDS - device_t0)) s"
