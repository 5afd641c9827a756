#!/usr/bin/env bash
# Session 42 (any GPU with 132 SMs; an H200 makes the cuDNN column issue 6's numbers too): the decode K / V
# copies evict-first only where session 41's H100 A/B of the unconditional form (3bcc614) gained, i.e. every
# cache row read by one CTA and a cache of at most 4x the L2 (f7a0e01, core::decode_cache_evict_first), against
# main. Re-read of session 41's table: +0.9 / +6.9 / +4.1% at B 1 L 1k / 8k / 32k, +4.4 / +3.9% at B 4 L 1k / 8k,
# +6.6% at B 16 L 1k (dense; paged 16 +0.9 to +12.9%), B 64 L 1k (256 MiB) -0.5 / +0.3%, every cache of 512
# MiB or more -0.7 to -3.5%. Predicted: those six cells as there (+1-13%), the rest (now the normal policy, as on
# main) within +-1%: dense and paged geometric means ~1.02.
# Keep if dense and paged geometric means are >= 1.01, no cell below 0.98, and the tests pass.
# Gate: KVCacheCuda.* (quick tier). Then the change's decode grid with cuDNN and FA2 in one process, and
# memcheck of the page-size and split-count tests on the change. Limit 390.
# Runs in a tree unpacked from .ab/dec.tar.gz (../dispatch.sh decode).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op decode" device_ab "$L/ab" 250
# The change's build against cuDNN and FlashAttention-2 in one process (peers.py's interleaved rounds): issue
# 6's grid for the change, on whichever GPU this is.
((SECONDS - device_t0 < 250)) && device_peers "$L" decode_change 90 --op decode --impls flashattn,cudnn,fa2 &&
  sed -n '/^\[/p;/^copy ceiling/,$p' "$L/decode_change.log" | head -40
FLASHATTN_HEAD_DIMS="128" device_memcheck "$L/memcheck" \
  'KVCacheCuda.PageSizes*:KVCacheCuda.SplitCountsAgreeWithinRounding' $((375 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
