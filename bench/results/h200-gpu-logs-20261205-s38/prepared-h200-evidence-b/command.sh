#!/usr/bin/env bash
# Prepared in session 38 (not yet run; H200 only): part B of ../prepared-h200-evidence-a, on the same warm
# machine and its build-gpu/ (no build here; if build-gpu/ is missing, the machine is a fresh one: run part A
# first): long-context GQA backward and forward, the forward in fp16 at D 128, and the decode grid again with
# the implementation order reversed (with the interleaved rounds it should match part A's within ~1%).
# Prepare: as part A (the same .commit); run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 300).
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
[[ -d build-gpu/python ]] || { echo "no build-gpu/ from part A on this machine: nothing run"; exit 0; }
device_peers "$L" bwd_gqa_long 90 --op bwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" fwd_gqa_long 70 --op fwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" fwd_fp16 50 --op fwd --dtype fp16 --head-dims 128 --impls flashattn,cudnn
device_peers "$L" decode_reversed 60 --op decode --impls cudnn,fa2,flashattn
for n in bwd_gqa_long fwd_gqa_long fwd_fp16 decode_reversed; do
  [[ -f $L/$n.log ]] && sed -n '/^\[/p;/^ceilings/,$p;/^copy ceiling/,$p' "$L/$n.log" | head -40
done
echo "done at $((SECONDS - device_t0)) s"
