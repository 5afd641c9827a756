#!/usr/bin/env bash
# Session 43, call 6 (the budget's last ~400 s; on an H200 call 5 runs instead, as far as the limit lets it): which third implementation slows our dense split
# decode cells (call 4: with FA2 in the process dense B 1 L 32k and B 4 L 8k read 5-6% slower, cuDNN and our
# paged rows within 0.6%)? The decode grid in four processes of one build: flashattn and cuDNN alone
# again (the noise between two such runs), with PyTorch's memory-efficient SDPA as the third implementation,
# with FA2 listed first (its rows set up before ours), and with FA2 last as in call 4.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
if device_only H200 >/dev/null; then
  exec bash bench/results/h200-gpu-logs-20261206-s43/call5-h200-evidence/command.sh
fi
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 200
for impls in flashattn,cudnn flashattn,cudnn,efficient fa2,flashattn,cudnn flashattn,cudnn,fa2; do
  device_peers "$L" "decode_${impls//,/_}" 60 --op decode --impls "$impls"
done
for f in "$L"/decode_*.log; do
  echo "== ${f##*/}"
  sed -n '/^copy ceiling/,$p' "$f" | head -18
done
echo "done at $((SECONDS - device_t0)) s"
