#!/usr/bin/env bash
# Session 44's device calls: bash bench/results/h200-gpu-logs-20261206-s44/dispatch.sh MODE [LIMIT], LIMIT at
# most the device time left less 20 s.
#   first   on an H200: session 43's call5-h200-evidence on main; on any other GPU: mode short
#   short   session 43's prepared-fwd-short-tiles-ab in a tree unpacked from .ab/left.tar.gz (main + 1c31236),
#           with .ab/exp2_16.tar.gz (main + ab6136e) and .ab/exp2_8.tar.gz (+ 8dc27eb) as further candidates
#   probes  session 43's call8-decode-previous-kernel, then its prepared-fwd-s512-stall-profile, on main
#   exp2    (from call 3 on; "first" takes it on other GPUs from then on) call3-d64-exp2-period-ab, then
#           call4-decode-previous-kernel-again; prepared as call 3's header says
#   bisect  call5-decode-graph-fault-bisect on main
#   alive   call6-decode-previous-kernel-kept-alive on main
#   stale   call7-fwd-stale-max-ab (the working tree against .ab/base.tar.gz, as its header says)
#   stale128  call8-fwd-stale-max-ab-d128 (call 7 at D 128 only, for the budget left)
#   chains  prepared-fwd-row-max-chains-ab in a tree unpacked from .ab/chains.tar.gz (main + dbe2a2f), as its
#           header says; the next session's first call: FIRST_ELSE=chains dispatch.sh first LIMIT
# Prepare on main:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git worktree add -q --detach /tmp/wab HEAD && git -C /tmp/wab cherry-pick ab6136e &&
#     git -C /tmp/wab archive HEAD -o "$PWD/.ab/exp2_16.tar" -- . ':!bench/results' &&
#     git -C /tmp/wab cherry-pick 8dc27eb && git -C /tmp/wab archive HEAD -o "$PWD/.ab/exp2_8.tar" -- . \
#     ':!bench/results' && git -C /tmp/wab reset -q --hard HEAD~2 && git -C /tmp/wab cherry-pick 1c31236 &&
#     git -C /tmp/wab archive HEAD -o "$PWD/.ab/left.tar" -- . ':!bench/results' &&
#     git -C /tmp/wab rev-parse HEAD > .ab/left.commit && git worktree remove --force /tmp/wab
#   gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"].
set -u
results=$PWD/bench/results
s43=$results/h200-gpu-logs-20261206-s43
s44=$results/h200-gpu-logs-20261206-s44
wrap=$results/h200-gpu-logs-20261204-s28/wrap.sh
mode=${1:-}
if [[ $mode == first ]]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  echo "GPU: $gpu"
  [[ $gpu == *H200* ]] && exec bash "$wrap" "$s43/call5-h200-evidence/command.sh" "${2:-560}"
  mode=${FIRST_ELSE:-short}
fi
case $mode in
  short) exec scripts/device-in-tree left "$s43/prepared-fwd-short-tiles-ab/command.sh" "${2:-520}" ;;
  probes)
    timeout 150 bash "$s43/call8-decode-previous-kernel/command.sh"
    echo "call 8 rc=$?"
    timeout $((${2:-340} - SECONDS - 5)) bash "$s43/prepared-fwd-s512-stall-profile/command.sh"
    echo "profile rc=$?"
    cd "$OUT" && tar czf logs.tgz logs && rm -rf logs
    ;;
  exp2)
    timeout 310 bash "$s44/call3-d64-exp2-period-ab/command.sh"
    echo "call 3 rc=$?"
    timeout $((${2:-420} - SECONDS - 5)) bash "$s44/call4-decode-previous-kernel-again/command.sh"
    echo "call 4 rc=$?"
    cd "$OUT" && tar czf logs.tgz logs && rm -rf logs
    ;;
  bisect) exec bash "$wrap" "$s44/call5-decode-graph-fault-bisect/command.sh" "${2:-200}" ;;
  alive) exec bash "$wrap" "$s44/call6-decode-previous-kernel-kept-alive/command.sh" "${2:-150}" ;;
  stale) exec bash "$wrap" "$s44/call7-fwd-stale-max-ab/command.sh" "${2:-430}" ;;
  stale128) exec bash "$wrap" "$s44/call8-fwd-stale-max-ab-d128/command.sh" "${2:-205}" ;;
  chains) exec scripts/device-in-tree chains "$s44/prepared-fwd-row-max-chains-ab/command.sh" "${2:-440}" ;;
  *) echo "usage: [FIRST_ELSE=MODE] dispatch.sh first|short|probes|exp2|bisect|alive|stale|stale128|chains [LIMIT]" >&2; exit 2 ;;
esac
