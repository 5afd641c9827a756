#!/usr/bin/env bash
# Session 42, call 4 (the ~400 s of device time left): the decode kernels with the evict-first rule landed
# (91a36cc), built once; then on an H200 issue 6's decode grid (flashattn dense and paged 16, cuDNN and FA2
# in one process, peers.py's interleaved rounds, which have never run on an H200); on any other GPU the
# decode split sweep at B 1 / 4: does the split rule still pick well now that those cells read evict-first?
# (Sessions 38 / 41 on an H100: at B 1 L 32k 8-9 splits in a cluster beat the rule's 32 through the combine
# kernel by 3-7%.) Splits 0 = the library's choice, then 4, 8, 9 (a cluster of 9), 16, 32, dense and paged 16,
# peers.py's flushed step, 30 samples each.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less 20 s).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" device_build "$L/build" 200
if device_only H200; then
  device_peers "$L" decode 90 --op decode --impls flashattn,cudnn,fa2
  sed -n '/^\[/p;/^copy ceiling/,$p' "$L/decode.log" | head -40
else
  for page in 0 16; do
    PYTHONPATH=build-gpu/python timeout 70 python3 bench/decode_splits.py --batches 1,4 --lengths 8192,32768,131072 \
      --splits 0,4,8,9,16,32 --page-size "$page" --samples 30 --json "$L/splits_page$page.json" \
      >"$L/splits_page$page.log" 2>&1
    echo "splits page $page rc=$? at $((SECONDS - device_t0)) s"
    tail -14 "$L/splits_page$page.log"
  done
fi
echo "done at $((SECONDS - device_t0)) s"
