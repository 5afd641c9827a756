#!/usr/bin/env bash
# Session 38, call 5 (H200 only; on any other GPU it exits at once): issue 6's decode grid under peers.py's
# interleaved rounds (31fd1d9), twice (the implementation order reversed in the second), then decode_splits
# of the split cells (as call 4 on the H100).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 300).
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" \
  device_build "$L/build" 200
device_peers "$L" decode 60 --op decode --impls flashattn,fa2,cudnn
device_peers "$L" decode_reversed 60 --op decode --impls cudnn,fa2,flashattn
for n in decode decode_reversed; do sed -n '/^B /,$p' "$L/$n.log"; done
PYTHONPATH=build-gpu/python timeout 60 python3 bench/decode_splits.py --batches 1,4 --lengths 8192,32768,131072 \
  --splits 0,8,16,32 --samples 30 --json "$L/splits_dense.json" > "$L/splits_dense.log" 2>&1
echo "splits rc=$? at $((SECONDS - device_t0)) s"; tail -24 "$L/splits_dense.log"
echo "done at $((SECONDS - device_t0)) s"
