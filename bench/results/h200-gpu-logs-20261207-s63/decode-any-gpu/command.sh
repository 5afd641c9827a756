#!/usr/bin/env bash
# Session 63, for whichever GPU comes: on an H200, ../decode-h200-ab/command.sh (the decode A/B against
# session 37's kernels, ~450 s). On any other GPU (~200 s): main's decode kernels since 0116cf0 (the cache
# copies without a policy operand unless evict-first) built alone, the KVCacheCuda tests,
# memcheck of the page-size and split-count tests, and issue 6's decode grid, flashattn and cuDNN alone
# in the process (interleaved rounds).
# Prepare: as ../decode-h200-ab/command.sh says; carry [".ab", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if [[ $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) == *H200* ]]; then
  # With little device time left (DECODE_H200_GRID=1), the decode grid on main alone: set beside sessions 37
  # and 61's grids it answers the same question in ~200 s.
  [[ -n ${DECODE_H200_GRID:-} ]] && exec bash bench/results/h200-gpu-logs-20261207-s63/h200-decode-grid/command.sh
  DECODE_AB_SHORT=${DECODE_AB_SHORT:-} DECODE_AB_LIMIT=${DECODE_AB_LIMIT:-480} \
    exec bash bench/results/h200-gpu-logs-20261207-s63/decode-h200-ab/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" \
  device_build "$L/build" 200
timeout 120 build-gpu/tests/flashattn_tests_gpu --gtest_filter='KVCacheCuda.*' >"$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - device_t0)) s"
grep -E "^\[  (     OK|FAILED|  PASSED) \]" "$L/tests.log" | tail -14
device_memcheck "$L/memcheck" 'KVCacheCuda.PageSizes*:KVCacheCuda.SplitCounts*' 60
device_peers "$L" decode 90 --op decode --impls flashattn,cudnn
sed -n '/^copy ceiling/,$p' "$L/decode.log" | head -30
echo "done at $((SECONDS - device_t0)) s"
