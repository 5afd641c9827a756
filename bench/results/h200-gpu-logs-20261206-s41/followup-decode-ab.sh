#!/usr/bin/env bash
# A second call on a still-warm machine (idle release 30 s) without preparing main again: session 39's decode
# A/B (../h200-gpu-logs-20261205-s39/prepared-decode-combine-evict-ab) run from a tree of its own, so it can be
# issued right after the s40 sm90 A/B, whose working tree (main + 2aeb1d0) it leaves alone.
# Prepare beside the s40 call's .ab (base = main, so tarballs made from BASE=$(git rev-parse HEAD~1) there):
#   mkdir -p .ab/s39 && git archive "$BASE" -o .ab/s39/base.tar -- . ':!bench/results'
#   for c in evict:3bcc614 change:5bf28f2; do n=${c%%:*}; git worktree add -q --detach /tmp/w$n "$BASE"
#     git -C /tmp/w$n cherry-pick ${c##*:} && git -C /tmp/w$n archive HEAD -o "$PWD/.ab/s39/$n.tar" -- . \
#       ':!bench/results'; [[ $n == change ]] && git -C /tmp/w$n rev-parse HEAD >.ab/s39/commit
#     git worktree remove --force /tmp/w$n; done; gzip .ab/s39/*.tar
# Run: bash bench/results/h200-gpu-logs-20261206-s41/followup-decode-ab.sh LIMIT, carry as the s40 call's,
# with LIMIT at most the device time left less 20 s (the wrapper packs the logs only if its own limit ends it).
set -u
root=$PWD
t=$(mktemp -d)/tree && mkdir -p "$t/.ab" "$t/third_party" && tar xzf .ab/s39/change.tar.gz -C "$t" || exit 2
cp .ab/s39/base.tar.gz .ab/s39/evict.tar.gz "$t/.ab/" && cp .ab/s39/commit "$t/.commit" &&
  cp -r third_party/cutlass "$t/third_party/" || exit 2
cd "$t" && bash "$root/bench/results/h200-gpu-logs-20261204-s28/wrap.sh" \
  "$root/bench/results/h200-gpu-logs-20261205-s39/prepared-decode-combine-evict-ab/command.sh" "${1:-585}"
