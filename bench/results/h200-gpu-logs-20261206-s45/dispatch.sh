#!/usr/bin/env bash
# Session 45's prepared device calls: bash bench/results/h200-gpu-logs-20261206-s45/dispatch.sh MODE [LIMIT],
# LIMIT at most the device time left less 20 s.
#   first   on an H200: session 43's call5-h200-evidence on main (issue 4-6 evidence: decode with
#           flashattn and cuDNN alone, GQA-long and D 128 grids); on any other GPU: mode pairs
#   pairs   prepared-fwd-gqa-pairs-ab in a tree unpacked from .ab/pairs.tar.gz (41f30f9), against main
# Prepare on main (pairs; first needs only .commit):
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git archive 41f30f9 -o .ab/pairs.tar -- . ':!bench/results'; git rev-parse 41f30f9 > .ab/pairs.commit
#   gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"].
set -u
results=$PWD/bench/results
s43=$results/h200-gpu-logs-20261206-s43
s45=$results/h200-gpu-logs-20261206-s45
wrap=$results/h200-gpu-logs-20261204-s28/wrap.sh
mode=${1:-}
if [[ $mode == first ]]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  echo "GPU: $gpu"
  [[ $gpu == *H200* ]] && exec bash "$wrap" "$s43/call5-h200-evidence/command.sh" "${2:-560}"
  mode=pairs
fi
case $mode in
  pairs) exec scripts/device-in-tree pairs "$s45/prepared-fwd-gqa-pairs-ab/command.sh" "${2:-440}" ;;
  *) echo "usage: dispatch.sh first|pairs [LIMIT]" >&2; exit 2 ;;
esac
