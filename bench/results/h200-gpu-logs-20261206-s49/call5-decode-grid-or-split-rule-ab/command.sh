#!/usr/bin/env bash
# Session 49, call 5 (~200-250 s). On an H200: issue 6's decode grid on main with the split rule of 1f26dbf
# (B 1 L 128k: 32 splits, was 33), flashattn and cuDNN alone in the process, peers.py's interleaved rounds
# (session 47's call 4 on this commit). On an H100: that rule A/B'd against main before it (54515e7), decode
# grid, two runs a side: predicted B 1 L 128k +0.6-1.1% dense and paged (calls 2-4: 32 splits 1.1-2.0 us
# faster than 33), every other cell the same launch on both sides (within noise).
# Prepare: git rev-parse HEAD > .commit; .ab/base.tar.gz from 54515e7; carry [".ab", "third_party/cutlass",
# ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s47/call4-decode-grid/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op decode" device_ab "$L/ab" 300
echo "done at $((SECONDS - device_t0)) s"
