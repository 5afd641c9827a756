#!/usr/bin/env bash
# Session 57, call 2 (~300 s, any GPU): are the persistent forward's CTAs in lockstep at short tiles? The
# probe commit (reverted) delays CTAs' producers at the kernel's start by FLASHATTN_PROBE_STAGGER_NS: > 0
# the odd CTAs by that many ns, < 0 CTA i by (i % 4) * -ns. One build; 0 (main's behaviour), 3000 and -1500
# timed in interleaved rounds on D 64 / 128, full and causal, S 512 / 1k / 2k; cuDNN once after them.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90" device_build "$L/build" 200
grid=(--op fwd --head-dims 64,128 --seqlens 512,1024,2048)
for r in 1 2 3; do
  for ns in 0 3000 -1500; do
    FLASHATTN_PROBE_STAGGER_NS=$ns device_peers "$L" "ns${ns}_$r" 60 "${grid[@]}" --impls flashattn
  done
done
device_peers "$L" cudnn 60 "${grid[@]}" --impls cudnn
for ns in 3000 -1500; do
  echo "== stagger $ns / none"
  python3 bench/ab_compare.py --a "$L"/ns${ns}_?.json --b "$L"/ns0_?.json --peer cudnn --peer-runs "$L/cudnn.json"
done
echo "done at $((SECONDS - device_t0)) s"
