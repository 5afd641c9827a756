#!/usr/bin/env bash
# Session 64, call 4, for whichever GPU comes, with ~290 device seconds left. On an H200 (~120 s): session 63's
# h200-decode-grid/ (issue 6's decode grid on main, flashattn and cuDNN, only the D 128 decode kernels built),
# to set beside sessions 37 and 61's H200 grids. On any other GPU: call 2's check of the fixed
# KVCacheCuda.SplitCounts* test. Prepare: .ab/cutlass.tgz, .commit; carry [".ab", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if [[ $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) == *H200* ]]; then
  exec bash bench/results/h200-gpu-logs-20261207-s63/h200-decode-grid/command.sh
fi
exec bash bench/results/h200-gpu-logs-20261208-s64/call2-any-gpu/command.sh
