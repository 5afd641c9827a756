#!/usr/bin/env bash
# Session 63, for an H200 only (~450 s; exits at once on any other GPU): is session 61's decode drop in the
# >= 256 MiB caches (8-15% below session 37, the same graph replayed back to back included, cuDNN within 1%
# of its session 37 numbers) the explicit evict-normal L2 policy on the cache copies? Timed in today's
# harness against session 37's kernels (f51bccf) as the base: the working tree (main since 0116cf0: plain
# copies unless evict-first, kept on that reasoning), c1 = d5a9ced (main before it: the evict-normal policy
# operand everywhere evict-first is not taken) and c2 = 5457770 (plain copies, evict-first at every cache
# size where every row is read by one CTA: the size gate that session 41's H100 grid set, 1-3.5% lost from
# 512 MiB there). main / base near 1.0 with c1 below in the large cells confirms the keep; main below as
# well puts the drop elsewhere (revert 0116cf0 only if main < c1).
# Prepare: .ab/cutlass.tgz, .ab/s37.tar.gz (git archive f51bccf), .ab/normal.tar.gz (d5a9ced),
# .ab/evict-all.tar.gz (5457770), each `git archive C -o X.tar -- . ':!bench/results'` then gzip; .commit;
# carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh. DECODE_AB_SHORT=1 leaves c2 out
# and DECODE_AB_LIMIT sets the A/B's limit (default 480 s), for a call with less device time left.
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
candidates=(.ab/normal.tar)
[[ -n ${DECODE_AB_SHORT:-} ]] || candidates+=(.ab/evict-all.tar)
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_BASE_TARBALL=.ab/s37.tar AB_TREE_JOBS=5 \
  AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op decode" \
  device_ab "$L/ab" "${DECODE_AB_LIMIT:-480}" "${candidates[@]}"
echo "done at $((SECONDS - device_t0)) s"
