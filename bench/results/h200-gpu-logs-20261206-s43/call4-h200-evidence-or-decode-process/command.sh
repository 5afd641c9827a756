#!/usr/bin/env bash
# Session 43, call 4 (a second try at an H200 with the budget left). On an H200: session 42's call 3 as
# written (the decode grid with the evict-first rule and the long-context GQA / D 128 grids against cuDNN under
# the interleaved rounds). On any other GPU: the decode grid twice in separate processes, flashattn and cuDNN
# alone, then with FA2 as a third implementation, as session 42's was: there dense B 1 L 32k and B 4 L 8k read
# 5-7% below the same build's A/B runs minutes before (2013 / 2033 GB/s against 2120 / 2171), cuDNN 1% below
# its own; does the third implementation's presence in the process (its allocations, its graphs) move them?
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start, at most 560).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
if device_only H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s42/call3-h200-evidence-d128/command.sh
fi
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 200
device_peers "$L" decode_two 100 --op decode --impls flashattn,cudnn
device_peers "$L" decode_three 100 --op decode --impls flashattn,cudnn,fa2
for n in decode_two decode_three; do
  [[ -f $L/$n.log ]] && sed -n '/^copy ceiling/,$p' "$L/$n.log" | head -30
done
echo "done at $((SECONDS - device_t0)) s"
