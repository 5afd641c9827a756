#!/usr/bin/env bash
# Session 42's first call, whichever GPU comes: on an H200 session 38's evidence part A
# (../h200-gpu-logs-20261205-s38/prepared-h200-evidence-a, main in the working tree, limit 590; part B
# follows on the warm machine within its 30-s idle window), on any other 132-SM GPU call 1 (the L2-policy
# A/B) in a tree of its own unpacked from .ab/l2.tar.gz, so that main's tree stays as carried.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results';
#   git worktree add -q --detach /tmp/wl2 HEAD && git -C /tmp/wl2 cherry-pick 71db63a &&
#   git -C /tmp/wl2 archive HEAD -o "$PWD/.ab/l2.tar" -- . ':!bench/results' &&
#   git -C /tmp/wl2 rev-parse HEAD > .ab/l2.commit && git worktree remove --force /tmp/wl2
#   gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]. Run: bash bench/results/h200-gpu-logs-20261206-s42/dispatch.sh LIMIT
# (LIMIT at most the device time left less 20 s; 590 for part A's own limit).
set -u
root=$PWD
wrap=$root/bench/results/h200-gpu-logs-20261204-s28/wrap.sh
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash "$wrap" "$root/bench/results/h200-gpu-logs-20261205-s38/prepared-h200-evidence-a/command.sh" "${1:-590}"
fi
t=$(mktemp -d)/tree && mkdir -p "$t/.ab" "$t/third_party" && tar xzf .ab/l2.tar.gz -C "$t" || exit 2
cp .ab/base.tar.gz "$t/.ab/" && cp .ab/l2.commit "$t/.commit" && cp -r third_party/cutlass "$t/third_party/" || exit 2
cd "$t" && exec bash "$wrap" "$root/bench/results/h200-gpu-logs-20261206-s42/call1-l2-policies-ab/command.sh" "${1:-520}"
