#!/usr/bin/env bash
# Session 43's device calls: bash bench/results/h200-gpu-logs-20261206-s43/dispatch.sh MODE [LIMIT], LIMIT at
# most the device time left less 20 s.
#   first     on an H200: session 42's call 3 (decode, GQA-long and D 128 grids under peers.py's interleaved
#             rounds, main); on any other GPU: mode tok
#   tok       session 42's prepared-bwd-stat-token-ab in a tree unpacked from .ab/tok.tar.gz (main + c8bfc97)
#   splits    session 42's call 4 on main (on an H200 the decode grid, elsewhere the decode split sweep)
# Prepare on main (BASE = main's HEAD):
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git worktree add -q --detach /tmp/wtok HEAD && git -C /tmp/wtok cherry-pick c8bfc97 &&
#     git -C /tmp/wtok archive HEAD -o "$PWD/.ab/tok.tar" -- . ':!bench/results' &&
#     git -C /tmp/wtok rev-parse HEAD > .ab/tok.commit && git worktree remove --force /tmp/wtok
#   gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"].
set -u
results=$PWD/bench/results
s42=$results/h200-gpu-logs-20261206-s42
wrap=$results/h200-gpu-logs-20261204-s28/wrap.sh
in_tree() { exec scripts/device-in-tree "$@"; }  # in_tree NAME SCRIPT LIMIT
mode=${1:-}
if [[ $mode == first ]]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  echo "GPU: $gpu"
  if [[ $gpu == *H200* ]]; then
    exec bash "$wrap" "$s42/call3-h200-evidence-d128/command.sh" "${2:-560}"
  fi
  mode=tok
fi
case $mode in
  tok) in_tree tok "$s42/prepared-bwd-stat-token-ab/command.sh" "${2:-420}" ;;
  splits) exec bash "$wrap" "$s42/call4-h200-evidence-or-splits/command.sh" "${2:-300}" ;;
  *) echo "usage: dispatch.sh first|tok|splits [LIMIT]" >&2; exit 2 ;;
esac
