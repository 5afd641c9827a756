#!/usr/bin/env bash
# Session 43, call 5 (the last try at an H200; on any other GPU nothing runs). Issue 6's decode grid with the
# evict-first rule (91a36cc) under peers.py's interleaved rounds, first with flashattn and cuDNN alone in the
# process, then with FA2 as well (this session's call 4 on an H100: with FA2 in the process dense B 1 L 32k
# and B 4 L 8k read 5-6% slower, cuDNN within 1%); then, as the budget allows, issues 4 and 5's long-context
# GQA and D 128 grids against cuDNN.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
device_only H200 || exit 0
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80;fwd_sm90;bwd_sm90" \
  device_build "$L/build" 200
device_peers "$L" decode_two 60 --op decode --impls flashattn,cudnn
device_peers "$L" decode_three 60 --op decode --impls flashattn,cudnn,fa2
device_peers "$L" fwd_gqa_long 60 --op fwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" bwd_gqa_long 90 --op bwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" fwd128 40 --op fwd --head-dims 128 --impls flashattn,cudnn
device_peers "$L" bwd128 60 --op bwd --head-dims 128 --impls flashattn,cudnn
for n in decode_two decode_three fwd_gqa_long bwd_gqa_long fwd128 bwd128; do
  [[ -f $L/$n.log ]] && sed -n '/^ceilings/,$p;/^copy ceiling/,$p' "$L/$n.log" | head -30
done
echo "done at $((SECONDS - device_t0)) s"
