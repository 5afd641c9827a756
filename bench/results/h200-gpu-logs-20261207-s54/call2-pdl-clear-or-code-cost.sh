#!/usr/bin/env bash
# Session 54, call 2 (~520 s), on the machine call 1 left warm. After call 1's evidence grids (an H200):
# the PDL-clear A/B as call 1 runs it elsewhere. After call 1's PDL-clear A/B (not an H200): session 52's
# prepared code-cost A/B (../h200-gpu-logs-20261206-s52/prepared-fwd-split-tail-code-cost-ab/command.sh:
# main against 2a0b6c8, .ab/base_2a0b6c8.tar.gz in place of .ab/base.tar.gz).
# Prepare and carry as call 1; run through ../h200-gpu-logs-20261204-s28/wrap.sh (limit: what is left).
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $gpu == *H200* ]]; then
  tar xf .ab/pdl_clear_src.tar
  exec bash bench/results/h200-gpu-logs-20261207-s53/prepared-fwd-split-tail-pdl-clear-ab/command.sh
fi
gunzip -f .ab/*.tar.gz 2>/dev/null
mv .ab/base_2a0b6c8.tar .ab/base.tar
exec bash bench/results/h200-gpu-logs-20261206-s52/prepared-fwd-split-tail-code-cost-ab/command.sh
