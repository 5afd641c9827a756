#!/usr/bin/env bash
# Session 42, call 4: on an H200, call 3's evidence part (the decode grid with 91a36cc, then the GQA-long and
# D 128 grids, cuDNN in the same process, interleaved rounds); on any other GPU, the decode split sweep at
# B 1 / 4 with the evict-first rule landed (91a36cc): does the split rule still pick well now that those
# cells read evict-first? (Sessions 38 / 41 on an H100: at B 1 L 32k 8-9 splits in a cluster beat the rule's
# 32 through the combine kernel by 3-7%.) Splits 0 = the library's choice, then 4, 8, 9 (a cluster of 9),
# 16, 32, dense and paged 16, the flushed step of peers.py, 30 samples each.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less 20 s).
set -uo pipefail
source scripts/device-call-lib.sh
if device_only H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s42/call3-h200-evidence-d128/command.sh
fi
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" device_build "$L/build" 200
for page in 0 16; do
  PYTHONPATH=build-gpu/python timeout 90 python3 bench/decode_splits.py --batches 1,4 --lengths 8192,32768,131072 \
    --splits 0,4,8,9,16,32 --page-size "$page" --samples 30 --json "$L/splits_page$page.json" \
    >"$L/splits_page$page.log" 2>&1
  echo "splits page $page rc=$? at $((SECONDS - device_t0)) s"
  tail -14 "$L/splits_page$page.log"
done
echo "done at $((SECONDS - device_t0)) s"
