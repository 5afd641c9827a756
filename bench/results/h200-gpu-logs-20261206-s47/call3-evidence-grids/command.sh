#!/usr/bin/env bash
# Session 47, call 3 (~510 s, any GPU: an H200 is what issues 4-6 ask for; on an H100 the same grids say
# where main stands there). Main at b2b0374's kernels (the backward pairs reverted): issue 6's decode grid
# under peers.py's interleaved rounds with flashattn and cuDNN alone in the process (session 43 found FA2 in
# the process costs our dense split cells up to 6%), then issues 4 and 5's long-context GQA and D 128 grids
# against cuDNN. Session 43's call5-h200-evidence without its H200-only guard and without the FA2 decode run.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80;fwd_sm90;bwd_sm90" \
  device_build "$L/build" 200
# In the order of what the issues lack most; the call's limit cuts the tail.
device_peers "$L" decode 60 --op decode --impls flashattn,cudnn
device_peers "$L" bwd_gqa_long 90 --op bwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" fwd_gqa_long 60 --op fwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" bwd128 60 --op bwd --head-dims 128 --impls flashattn,cudnn
device_peers "$L" fwd128 40 --op fwd --head-dims 128 --impls flashattn,cudnn
for n in decode bwd_gqa_long fwd_gqa_long bwd128 fwd128; do
  [[ -f $L/$n.log ]] && sed -n '/^ceilings/,$p;/^copy ceiling/,$p' "$L/$n.log" | head -30
done
echo "done at $((SECONDS - device_t0)) s"
