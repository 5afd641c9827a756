#!/usr/bin/env bash
# Session 62: the decode kernel's whole key tiles by TMA (the working tree: 2ed4812 + d87bb0a) against main (ef5e62c,
# .ab/base.tar) on the decode grid (dense and paged 16), with two more trees timed against the same base:
# c1 = bcfbaba (main's copies without a policy operand unless evict-first) and c2 = f51bccf (session 37's
# kernels, on an H200 only). There c2 / base says whether session 61's drop of the >= 256 MiB cells (8-15% below session
# 37) is in the kernels or in the harness, c1 / base whether the policy operand is the cause. Predicted for
# TMA: the split cells (B 1 / 4, 8 warps an SM) 2-5% faster, the paged cells more than the dense (a paged
# tile's copies took 239 instructions a thread against 85 dense), B 64 unchanged (bound by HBM).
# Then compute-sanitizer memcheck of the KVCache tests on the TMA build.
# Prepare on main: rm -rf .ab && mkdir .ab && tar czf .ab/cutlass.tgz -C third_party/cutlass include
#   git archive ef5e62c -o .ab/base.tar -- . ':!bench/results'; git archive bcfbaba -o .ab/plain.tar -- . ':!bench/results'
#   git archive f51bccf -o .ab/s37.tar -- . ':!bench/results'; gzip .ab/*.tar; git rev-parse HEAD > .commit
#   carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
# session 37's tree only where its drop was seen (an H200).
candidates=(.ab/plain.tar)
[[ $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) == *H200* ]] && candidates+=(.ab/s37.tar)
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TREE_JOBS=5 \
  AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op decode" \
  device_ab "$L/ab" 440 "${candidates[@]}"
left=$((545 - (SECONDS - device_t0)))
device_memcheck "$L/memcheck" 'KVCacheCuda.PageSizesAndEdgeLengthsMatchOracle:KVCacheCuda.SplitCountsAgreeWithinRounding' "$left"
echo "done at $((SECONDS - device_t0)) s"
