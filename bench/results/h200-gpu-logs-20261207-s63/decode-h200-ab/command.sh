#!/usr/bin/env bash
# Session 63, for an H200 only (~450 s; exits at once on any other GPU): session 61's prepared decode question
# (../../h200-gpu-logs-20261207-s61/prepared-decode-h200-or-d64-bwd-ab/command.sh, its H200 branch): the
# working tree (main) and c1 = bcfbaba (copies without a policy operand unless evict-first) timed against
# session 37's kernels (f51bccf) as the base, in today's harness. main / base near 1.0 in the >= 256 MiB
# cells puts session 61's drop in the harness; main below and c1 back at 1.0 puts it in the policy operand.
# (Session 61's rows already lean one way: the same graph replayed back to back, no flush, read B 4 L 128k in
# 563 us against cuDNN's 474, and the cells the evict-first rule covers, <= 200 MiB, read faster than in
# session 37: the kernel, not the flush.) c2 = 5457770: bcfbaba with evict-first at every cache size where
# every row is read by one CTA (the size gate that session 41's H100 grid set, 1-3.5% lost from 512 MiB there).
# Prepare: .ab/cutlass.tgz, .ab/s37.tar.gz (git archive f51bccf), .ab/plain.tar.gz (bcfbaba),
# .ab/evict-all.tar.gz (5457770), .commit;
# carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_BASE_TARBALL=.ab/s37.tar AB_TREE_JOBS=5 \
  AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op decode" \
  device_ab "$L/ab" 480 .ab/plain.tar .ab/evict-all.tar
echo "done at $((SECONDS - device_t0)) s"
