#!/usr/bin/env bash
# Session 43, call 3 (the one try at an H200 this session's budget allows). On an H200: session 42's call 3
# as written (issue 6's decode grid with the evict-first rule, 91a36cc, and issues 4 / 5's long-context GQA and
# D 128 grids, each with cuDNN in one process under peers.py's interleaved rounds, never yet run on an H200).
# On any other GPU: the forward's long-context GQA and D 128 grids against cuDNN with each point's SM clock
# and power-cap share (peers.py's clock summary), to read whether the forward's fall from S 16k (703 TFLOP/s
# on session 37's H200) to 128k (633) is the power cap's, as the backward's is (this session's call 1: GQA
# 32k backward at 1,620-1,635 MHz, cuDNN at 1,688), or the kernel's cycles.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start, at most 560).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
if device_only H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s42/call3-h200-evidence-d128/command.sh
fi
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90" device_build "$L/build" 200
device_peers "$L" fwd_gqa_long 150 --op fwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" fwd128 90 --op fwd --head-dims 128 --impls flashattn,cudnn
for n in fwd_gqa_long fwd128; do
  [[ -f $L/$n.log ]] && sed -n '/^\[/p;/^ceilings/,$p' "$L/$n.log" | head -40
done
echo "done at $((SECONDS - device_t0)) s"
