#!/usr/bin/env bash
# Session 38, call 7 (any GPU): peers.py's interleaved rounds and per-point clocks (bench/clock_log.py) on a
# GPU for the first time: the decode grid, then the forward at D 128 S 16k full and causal with flashattn
# and cuDNN, whose rows should show the SM clock under the power cap (s38 calls 3 and 6).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 230).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" \
  device_build "$L/build" 150
device_peers "$L" decode 50 --op decode --impls flashattn,fa2,cudnn
grep -E "^\[" "$L/decode.log"
device_peers "$L" fwd 40 --op fwd --head-dims 128 --seqlens 4096,16384 --impls flashattn,cudnn
grep -E "^\[|Error|error" "$L/fwd.log" | head -20
python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rows"]; print(r[-1]["clocks"])' "$L/fwd.json"
echo "done at $((SECONDS - device_t0)) s"
