#!/usr/bin/env bash
# Session 54, call 1 (~520 s). The machine decides: on an H200, issues 4-6's evidence grids on main
# (../h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh); on any other GPU, session 53's prepared
# PDL-clear A/B (../h200-gpu-logs-20261207-s53/prepared-fwd-split-tail-pdl-clear-ab/command.sh), its change
# (09aa102's two source files, .ab/pdl_clear_src.tar) laid over main's working tree here.
# Prepare: working tree = main; .ab/base.tar.gz (main), .ab/from_2k.tar.gz (03de293), .ab/pdl_clear_src.tar,
# .ab/cutlass.tgz; git rev-parse HEAD > .commit; carry [".ab", ".commit"]; run through
# ../h200-gpu-logs-20261204-s28/wrap.sh (limit 580).
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $gpu == *H200* ]]; then
  exec bash bench/results/h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh
fi
tar xf .ab/pdl_clear_src.tar
exec bash bench/results/h200-gpu-logs-20261207-s53/prepared-fwd-split-tail-pdl-clear-ab/command.sh
