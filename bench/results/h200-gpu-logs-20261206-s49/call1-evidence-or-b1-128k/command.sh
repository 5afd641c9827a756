#!/usr/bin/env bash
# Session 49, call 1 (the first of the session, up to 560 s). On an H200: session 47's call 3 (issue 6's decode
# grid with flashattn and cuDNN alone, then issues 4 and 5's GQA-long and D 128 grids against cuDNN, ~510 s).
# On any other GPU: session 48's call 2 (B 1 L 128k against B 4 L 32k, timed and under ncu, ~250 s).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash bench/results/h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh
fi
exec bash bench/results/h200-gpu-logs-20261206-s48/call2-decode-grid-or-b1-128k/command.sh
