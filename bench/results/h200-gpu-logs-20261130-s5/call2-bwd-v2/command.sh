#!/usr/bin/env bash
# Session 5 call 2: sm90 backward v2 (dQ by TMA reduce-add, early dV): build D64/128, tests, sanitizers, peers bwd, ncu.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
export FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS=build
scripts/gpu $L > $L/gpu_summary.log 2>&1; tail -4 $L/gpu_summary.log
B=build-gpu; T=$B/tests/flashattn_tests_gpu
export FLASHATTN_GPU_TIER=quick
timeout 120 $T --gtest_filter='CudaBackwardSm90.*' > $L/tests_bwd90.log 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED|OK \]" $L/tests_bwd90.log | tail -12
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 1 $T --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.VarlenUnusedKeys' > $L/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -3 $L/memcheck.log
timeout 80 compute-sanitizer --tool racecheck --error-exitcode 1 $T --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys:CudaBackwardSm90.ShortQueriesWithLargeLogits' > $L/racecheck.log 2>&1; echo "racecheck rc=$?"; tail -3 $L/racecheck.log
timeout 60 compute-sanitizer --tool synccheck --error-exitcode 1 $T --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys:CudaBackwardSm90.DeterministicRerunsAreBitwiseIdentical' > $L/synccheck.log 2>&1; echo "synccheck rc=$?"; tail -3 $L/synccheck.log
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 150 python3 bench/peers.py --op bwd --head-dims 128,64 --impls flashattn,cudnn --json $OUT/peers_bwd.json > $L/peers_bwd.log 2>&1; echo "peers rc=$?"
timeout 40 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 2 -c 1 -o $OUT/bwd128v2 $B/flashattn bench --backend cuda --op bwd --batch 1 --heads 16 --seqlen-q 16384 --head-dim 128 --samples 1 --warmup 1 --quiet > $L/ncu_run.log 2>&1
ncu -i $OUT/bwd128v2.ncu-rep --page details > $L/ncu_details.txt 2>&1
ncu -i $OUT/bwd128v2.ncu-rep --page source --csv --print-source sass > $L/ncu_sass.csv 2>&1
rm -f $L/build.log
true

