#!/usr/bin/env bash
# Session 49, call 6 (the H100 of call 5, warm; its build-gpu is call 5's change, main at 1f26dbf's kernels and
# split rule): issue 6's decode grid with flashattn and cuDNN alone in the process, peers.py's interleaved
# rounds. Output: decode_main.json / .log.
source scripts/device-call-lib.sh
device_peers "$L" decode_main 100 --op decode --impls flashattn,cudnn
sed -n '/^copy ceiling/,$p' "$L/decode_main.log" | head -30
cd "$OUT" && tar czf logs.tgz logs && rm -rf logs
