#!/usr/bin/env bash
# Session 49, call 2 (any GPU with 132 SMs). The decode combine with one warp (one query row) per CTA (b46d1b4)
# against main (63aa02b). Call 1 (H100, ncu and decode_once): B 1 L 128k spends 16.0 us of a flushed call
# outside its decode kernel where B 4 L 32k spends 11.2 and cuDNN 11.7; its combine runs 8 CTAs of 4 rows x
# 33 splits (8.3 us under ncu with cold caches, B 4's 32 CTAs x 8 splits 5.9). With one warp per CTA the
# combine's 186-register CTA takes 6,144 registers and fits beside two decode CTAs (47,104), so it is resident
# at griddepcontrol.wait before the decode grid ends (four warps, 24,576, did not fit), and B 1's 32 rows
# read their partials on 32 SMs instead of 8. Predicted: -1 to -2 us where the combine kernel runs (B 1 from
# L 32k, B 4 from 8k): B 1 L 32k +2-3%, B 1 L 128k +0.5-1%, B 4 +0.3-1%; one-split and cluster cells within
# noise. Keep if dense and paged geometric means >= 1.000, B 1 L 32k and L 128k >= 1.005 dense, no cell < 0.98,
# tests pass (bitwise the base's results: the same code per row). Then: decode_once at B 1 L 128k with 32
# and 33 splits on both builds (does the 33rd split's second round cost what B 1 loses?), memcheck.
# Prepare: git rev-parse HEAD > .commit; .ab/base.tar.gz from 63aa02b; carry [".ab", "third_party/cutlass",
# ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op decode" device_ab "$L/ab" 330
base=$(awk '$1 == "base" {print $2}' "$L/ab/trees.txt")
for side in change base; do
  path=build-gpu/python
  [[ $side == base ]] && path=$base/build/python
  for splits in 33 32; do
    echo "== $side B 1 L 128k, $splits splits"
    PYTHONPATH=$path timeout 30 python3 bench/decode_once.py --batch 1 --length 131072 --num-splits $splits \
      --time 100 2>&1 | grep -E "num_splits|after an L2|back to back|peers.time"
  done
done
echo "decode_once done at $((SECONDS - device_t0)) s"
FLASHATTN_HEAD_DIMS="128" device_memcheck "$L/memcheck" 'KVCacheCuda.SplitCountsAgreeWithinRounding' \
  $((500 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
