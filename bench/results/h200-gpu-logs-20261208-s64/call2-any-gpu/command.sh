#!/usr/bin/env bash
# Session 64, call 2, for whichever GPU comes. On an H200: session 63's decode A/B, short form (main against
# session 37's kernels with c1 = d5a9ced, the evict-normal policy operand; DECODE_AB_SHORT=1, limit 430 s;
# prepare .ab as ../../h200-gpu-logs-20261207-s63/decode-h200-ab/command.sh says). On any other GPU (~60 s):
# the decode kernels alone (D 128) and KVCacheCuda.SplitCounts*, which failed in call 1 on its cluster
# expectation only: the test took the sm90 forward's presence for the decode kernel's cluster code, and a
# build of the decode family alone has no sm90 forward (fixed: the test now reads the built architectures).
# Carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if [[ $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) == *H200* ]]; then
  DECODE_AB_SHORT=1 DECODE_AB_LIMIT=${DECODE_AB_LIMIT:-430} \
    exec bash bench/results/h200-gpu-logs-20261207-s63/decode-h200-ab/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" \
  FLASHATTN_GPU_STEPS=build device_build "$L/build" 150
timeout 90 build-gpu/tests/flashattn_tests_gpu --gtest_filter='KVCacheCuda.SplitCounts*' >"$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - device_t0)) s"
grep -E "^\[  (     OK|FAILED|  PASSED) \]" "$L/tests.log" | tail -4
