#!/usr/bin/env bash
# Session 48, call 1 (any GPU with 132 SMs; an H200 makes the cuDNN rows issue 6's numbers too). The decode
# split combine with a row's first 32 splits (16 at D 256) loaded in one round (5a7f694), against main
# (e71c3b5: the same kernels as cc716b5). Before, the combine kernel paid four dependent L2 round trips after
# its griddepcontrol.wait (the lse for the maximum, the lse again for the sum, two batches of 16 splits' O);
# now one (SASS: 32 LDG.E.128 and 2 LDG.E back to back). Predicted: -0.3 to -1 us in the cells that combine
# through the kernel (B 1 from 32k keys and B 4 from 8k on the H200's split choices): +0.5-2% at B 1 L 32k and
# B 4 L 8k, < 0.5% at 128k, the rest (one split, or clusters) within noise; dense and paged alike.
# Keep if the dense and paged geometric means are >= 1.000 with B 1 L 32k and B 4 L 8k >= 1.005, no cell below
# 0.98, and the tests pass (results are bitwise those of the base: same weights, same order).
# Gate: KVCacheCuda.* (quick tier; SplitCountsAgreeWithinRounding now with 33 and 56 splits). Then the change's
# decode grid with cuDNN alone in the process, and memcheck of the split-count test.
# Prepare: git rev-parse HEAD > .commit; .ab/base.tar.gz from e71c3b5; carry [".ab", "third_party/cutlass",
# ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op decode" device_ab "$L/ab" 330
((SECONDS - device_t0 < 420)) && device_peers "$L" decode_change 80 --op decode --impls flashattn,cudnn &&
  sed -n '/^copy ceiling/,$p' "$L/decode_change.log" | head -30
FLASHATTN_HEAD_DIMS="128" device_memcheck "$L/memcheck" 'KVCacheCuda.SplitCountsAgreeWithinRounding' \
  $((545 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
