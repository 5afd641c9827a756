#!/usr/bin/env bash
# Session 11 call 1: the first GPU run of the decode copy-instruction changes (48c34e1, 77a0622, 5d5604f on
# main, FLASHATTN_COMMIT) against 64f89a1 (the decode code before them), D 128 kernels for 90a: scripts/ab
# over the decode grid (dense and paged 16, two interleaved runs each, cuDNN in a run of its own); the
# KVCache tests at the full tier and the far-page 64-bit test on the change's build; memcheck over the page
# size and split count tests; then ncu of the sm90 backward at D 128, B 1 H 16 S 16k (per-instruction
# stall samples, for issue 5).
set -uo pipefail
export FLASHATTN_COMMIT=9574682
L=$OUT/logs; mkdir -p $L
FLASHATTN_HEAD_DIMS=128 AB_RUNS=2 AB_PEERS_ARGS="--op decode" timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1
echo "ab rc=$?"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 120 $T --gtest_filter='KVCacheCuda.*:CudaOffsets64Bit.Decoding*' > $L/tests_kvcache_full.log 2>&1
echo "kvcache full rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|tests ran" $L/tests_kvcache_full.log | head -20
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 \
  $T --gtest_filter='KVCacheCuda.PageSizes*:KVCacheCuda.SplitCounts*' > $L/memcheck_kv.log 2>&1
echo "memcheck rc=$?"; tail -1 $L/memcheck_kv.log
timeout 60 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 2 -c 1 -o $OUT/bwd128 \
  build-gpu/flashattn bench --backend cuda --op bwd --batch 1 --heads 16 --seqlen-q 16384 --head-dim 128 \
  --samples 1 --warmup 1 --quiet > $L/ncu_bwd_run.log 2>&1; echo "ncu rc=$?"
ncu -i $OUT/bwd128.ncu-rep --page details > $L/ncu_bwd_details.txt 2>&1
ncu -i $OUT/bwd128.ncu-rep --page source --csv --print-source sass > $L/ncu_bwd_sass.csv 2>&1
grep -E "Duration|Registers Per|Issue Slots Busy|Tensor" $L/ncu_bwd_details.txt | head -8
