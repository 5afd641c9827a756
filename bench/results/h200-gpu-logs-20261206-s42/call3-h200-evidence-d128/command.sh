#!/usr/bin/env bash
# Session 42, call 3 (H200 only; on any other GPU session 38's port-model profile runs instead, from the
# carried build-bin/): issue 6's decode grid with the evict-first change landed (91a36cc) and issues 4 and 5's
# D 128 cells, each grid with cuDNN (and FA2 for decode) in one process under peers.py's interleaved rounds,
# which have never run on an H200 (session 37's grids timed flashattn first after each point's reference, a
# place that read 6-9% slow in decode; session 38). In the order of what the budget can lose last: decode,
# long-context GQA forward and backward, the D 128 forward and backward paper grids.
# Prepare: git rev-parse HEAD > .commit; build-bin/ from scripts/build-for-device "64;128" bf16 (fwd_sm90 and
# bwd_sm90 families) for the fallback; carry ["third_party/cutlass", ".commit", "build-bin"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less 20 s, at most 560).
set -uo pipefail
source scripts/device-call-lib.sh
if ! device_only H200; then
  exec bash bench/results/h200-gpu-logs-20261205-s38/prepared-bwd-smem-port-profile/command.sh
fi
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90;kvcache_sm80" \
  device_build "$L/build" 200
device_peers "$L" decode 75 --op decode --impls flashattn,cudnn,fa2
device_peers "$L" fwd_gqa_long 80 --op fwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" bwd_gqa_long 100 --op bwd --grid gqa-long --impls flashattn,cudnn
device_peers "$L" fwd128 50 --op fwd --head-dims 128 --impls flashattn,cudnn
device_peers "$L" bwd128 70 --op bwd --head-dims 128 --impls flashattn,flashattn_det,cudnn
for n in decode fwd_gqa_long bwd_gqa_long fwd128 bwd128; do
  [[ -f $L/$n.log ]] && sed -n '/^\[/p;/^ceilings/,$p;/^copy ceiling/,$p' "$L/$n.log" | head -40
done
echo "done at $((SECONDS - device_t0)) s"
