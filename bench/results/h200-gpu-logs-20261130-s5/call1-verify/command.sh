#!/usr/bin/env bash
# Session 5 call 1: full 90a build + GPU tests (quick tier) + pytest + ncu of the sm90 backward D128.
set -uo pipefail
export FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build ctest pytest" FLASHATTN_GPU_TIER=quick FLASHATTN_CTEST_TIMEOUT=240
L=$OUT/logs; mkdir -p $L
timeout 470 scripts/gpu $L > $L/gpu_summary.log 2>&1
tail -20 $L/gpu_summary.log
B=build-gpu/flashattn
timeout 60 ncu --clock-control none --set full -k regex:bwd_sm90 -c 1 -o $OUT/bwd128 $B bench --backend cuda --op bwd --batch 1 --heads 16 --seqlen-q 16384 --head-dim 128 --samples 1 --warmup 0 --quiet > $L/ncu_run.log 2>&1
ncu -i $OUT/bwd128.ncu-rep --page details > $L/ncu_bwd128_details.txt 2>&1
ncu -i $OUT/bwd128.ncu-rep --page source --csv --print-source sass > $L/ncu_bwd128_sass.csv 2>&1
ls -la $OUT $L
cd $OUT && tar czf logs.tgz logs && rm -rf logs
