#!/usr/bin/env bash
# Prepared in session 61 (not yet run; ~300 s). On an H200: is the decode grid's drop since session 37 in the
# kernels or in the harness? Session 61's H200 grid (evidence-grids-h200/) read the caches of 256 MiB and more
# 8-15% below session 37's (dense B 4 L 128k 4441 -> 3756 GB/s, B 64 L 8k 4432 -> 3910, paged B 16 L 32k
# 4399 -> 3775) while cuDNN read within 1% of its session 37 numbers. Between them: peers.py's interleaved
# rounds with cuDNN alone in the process (session 38; on an H100 they agreed with the old order within 1%),
# and the decode kernel's copies, which since 91a36cc carry an L2 policy operand everywhere (evict-first where
# core::decode_cache_evict_first says, else createpolicy's evict_normal; the session 42 A/B was on an H100,
# where the large caches read within 0.3%), the split rule (1f26dbf) and the combine (5a7f694, 82060fa).
# This A/B times, in today's harness, the working tree (main) and c1 = bcfbaba (the copies without a policy
# operand unless evict-first) against session 37's kernels (f51bccf) as the base: main / base near 1.0 in
# the large cells puts the drop in the harness; main below and c1 back at 1.0 puts it in the policy operand.
# On any other GPU: three D 64 backward candidates on the 128 x 128 tile against main (the working tree, main
# as well: an A/A that gives the run-to-run spread): c1 = c29ee06, one score column in 8 exponentiated on
# the FMA pipe (spills 136 / 232; predicted +0.5 ... +2%: the step's exponentials take MUFU ~1,024 clocks of
# ~5,500, with both warpgroups in that phase at once); c2 = 42032ba, the same at 1 in 16 (156 / 256); c3 =
# b7f727c, the dQ handed over right after its staging (140 / 228; ±1%).
# Prepare on main: rm -rf .ab && mkdir .ab && tar czf .ab/cutlass.tgz -C third_party/cutlass include
#   git archive f51bccf -o .ab/s37.tar -- . ':!bench/results'; git archive bcfbaba -o .ab/plain.tar -- . ':!bench/results'
#   git archive HEAD -o .ab/base.tar -- . ':!bench/results'; git archive c29ee06 -o .ab/fma8.tar -- . ':!bench/results'
#   git archive 42032ba -o .ab/fma16.tar -- . ':!bench/results'; git archive b7f727c -o .ab/undeferred.tar -- . ':!bench/results'
#   gzip .ab/*.tar; git rev-parse HEAD > .commit; carry [".ab", ".commit"] (the working tree: main, nothing
#   applied); run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the
#   start, at most 560).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
if [[ $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) == *H200* ]]; then
  FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_BASE_TARBALL=.ab/s37.tar AB_TREE_JOBS=6 \
    AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op decode" \
    device_ab "$L/ab" 420 .ab/plain.tar
else
  FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_RUNS=2 AB_TREE_JOBS=4 AB_TESTS_TIMEOUT=90 \
    AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.Deterministic*' \
    AB_PEERS_ARGS="--op bwd --head-dims 64 --samples 10" \
    device_ab "$L/ab" 480 .ab/fma8.tar .ab/fma16.tar .ab/undeferred.tar
fi
echo "done at $((SECONDS - device_t0)) s"
