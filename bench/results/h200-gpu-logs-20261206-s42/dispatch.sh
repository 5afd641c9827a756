#!/usr/bin/env bash
# Session 42's device calls: bash bench/results/h200-gpu-logs-20261206-s42/dispatch.sh MODE [LIMIT], LIMIT at
# most the device time left less 20 s (the wrapper packs the logs only when its own limit ends the script).
#   decode  call2-decode-evict-gated-ab in a tree unpacked from .ab/dec.tar.gz (main + f7a0e01), any GPU
#   evidence-a  session 38's evidence part A on main (working tree; H200 only, limit 590; part B follows on
#           the warm machine: mode evidence-b)
#   l2      call1-l2-policies-ab in a tree unpacked from .ab/l2.tar.gz (main + 71db63a)
#   evidence-b  session 38's evidence part B on main, reusing part A's build-gpu/ (same warm H200)
# The A/B trees are separate so that main's tree (and part A's build in it) stays as carried.
# Prepare on main (BASE = main's HEAD):
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   for c in l2:71db63a dec:f7a0e01; do n=${c%%:*}; git worktree add -q --detach /tmp/w$n HEAD
#     git -C /tmp/w$n cherry-pick ${c##*:} && git -C /tmp/w$n archive HEAD -o "$PWD/.ab/$n.tar" -- . \
#       ':!bench/results' && git -C /tmp/w$n rev-parse HEAD > .ab/$n.commit; git worktree remove --force /tmp/w$n; done
#   gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"].
set -u
root=$PWD
results=$root/bench/results
wrap=$results/h200-gpu-logs-20261204-s28/wrap.sh
in_tree() { exec scripts/device-in-tree "$@"; }  # in_tree NAME SCRIPT LIMIT
case ${1:-} in
  evidence-a) exec bash "$wrap" "$results/h200-gpu-logs-20261205-s38/prepared-h200-evidence-a/command.sh" "${2:-590}" ;;
  decode) in_tree dec "$results/h200-gpu-logs-20261206-s42/call2-decode-evict-gated-ab/command.sh" "${2:-390}" ;;
  l2) in_tree l2 "$results/h200-gpu-logs-20261206-s42/call1-l2-policies-ab/command.sh" "${2:-520}" ;;
  evidence-b) exec bash "$wrap" "$results/h200-gpu-logs-20261205-s38/prepared-h200-evidence-b/command.sh" "${2:-300}" ;;
  *) echo "usage: dispatch.sh decode|l2|evidence-a|evidence-b [LIMIT]" >&2; exit 2 ;;
esac
