#!/usr/bin/env bash
# Session 46's prepared device calls: bash bench/results/h200-gpu-logs-20261206-s46/dispatch.sh MODE [LIMIT],
# LIMIT at most the device time left less 20 s.
#   first   on an H200: session 43's call5-h200-evidence on main (issue 4-6 evidence: decode with
#           flashattn and cuDNN alone, GQA-long and D 128 grids); on any other GPU: mode bwd-pairs
#   bwd-pairs   prepared-bwd-key-block-pairs-ab in a tree unpacked from .ab/full.tar.gz (f996a82), with
#               .ab/causal.tar.gz (b4b9a07) a second candidate, against main
# Prepare on main (bwd-pairs; first needs only .commit):
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git archive f996a82 -o .ab/full.tar -- . ':!bench/results'; git rev-parse f996a82 > .ab/full.commit
#   git archive b4b9a07 -o .ab/causal.tar -- . ':!bench/results'; gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"].
set -u
results=$PWD/bench/results
s43=$results/h200-gpu-logs-20261206-s43
s46=$results/h200-gpu-logs-20261206-s46
wrap=$results/h200-gpu-logs-20261204-s28/wrap.sh
mode=${1:-}
if [[ $mode == first ]]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  echo "GPU: $gpu"
  [[ $gpu == *H200* ]] && exec bash "$wrap" "$s43/call5-h200-evidence/command.sh" "${2:-560}"
  mode=bwd-pairs
fi
case $mode in
  bwd-pairs) exec scripts/device-in-tree full "$s46/prepared-bwd-key-block-pairs-ab/command.sh" "${2:-580}" ;;
  *) echo "usage: dispatch.sh first|bwd-pairs [LIMIT]" >&2; exit 2 ;;
esac
