#!/usr/bin/env bash
# Session 64, call 3, for whichever GPU comes, sized for the device time left (~470 s). On an H200 (~220 s):
# the decode grid's A/B of main (0116cf0: the cache copies without a policy operand unless evict-first)
# against c1 = d5a9ced (the explicit evict-normal policy operand it removed) as the base, interleaved runs,
# two a side, cuDNN alongside, only the D 128 decode kernels built and no tests (the KVCacheCuda tests passed
# on both kernels' code in session 62 and on main in session 64's call 1). Session 63's decode-h200-ab/
# also timed session 37's kernels; here session 37's H200 grid (h200-decode-20261205-s37.json) stands in for
# them, across sessions. On any other GPU: call 2's check of the fixed KVCacheCuda.SplitCounts* test.
# Prepare: .ab/cutlass.tgz, .ab/normal.tar.gz (git archive d5a9ced -- . ':!bench/results', gzip), .commit;
# carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if [[ $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) != *H200* ]]; then
  exec bash bench/results/h200-gpu-logs-20261208-s64/call2-any-gpu/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="kvcache_sm80" AB_BASE_TARBALL=.ab/normal.tar AB_PEERS_ARGS="--op decode" \
  device_ab "$L/ab" "${DECODE_AB_LIMIT:-300}"
echo "done at $((SECONDS - device_t0)) s"
