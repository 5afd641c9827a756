#!/usr/bin/env bash
# Session 38, call 4: the split rule's cells against clusters. The split cells are the decode grid's
# weakest (call 3, H100, interleaved rounds: dense B 1 L 32k 0.91x cuDNN, B 4 L 8k 0.93, B 1 L 8k / 128k and
# B 4 L 32k 0.96-0.97), and B 1 L 32k's 32 splits go through the combine kernel (call 2's ncu: 7.9 us alone,
# ~3.7 us of the step back to back) where up to 16 combine in the decode kernel's clusters (session 35's
# H100 sweep: 8 in a cluster 1.041x faster than 32; session 21's H200: 16 in a cluster 1.019x). decode_splits
# of B 1 / 4 x L 8k / 32k / 128k, dense and paged 16, splits 0 (the library's choice), 4, 8, 16, 32. On an
# H200 first the decode grid with peers.py's interleaved rounds (issue 6's evidence under the fair timing).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 400).
set -uo pipefail
source scripts/device-call-lib.sh
L=$OUT/logs; mkdir -p "$L"
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" \
  device_build "$L/build" 200
if device_only H200; then
  device_peers "$L" decode 60 --op decode --impls flashattn,fa2,cudnn
  sed -n '/^B /,$p' "$L/decode.log"
fi
for page in 0 16; do
  PYTHONPATH=build-gpu/python timeout 90 python3 bench/decode_splits.py --batches 1,4 --lengths 8192,32768,131072 \
    --splits 0,4,8,16,32 --page-size "$page" --samples 30 --json "$L/splits_page$page.json" > "$L/splits_page$page.log" 2>&1
  echo "splits page $page rc=$? at $((SECONDS - device_t0)) s"
  tail -32 "$L/splits_page$page.log"
done
echo "done at $((SECONDS - device_t0)) s"
