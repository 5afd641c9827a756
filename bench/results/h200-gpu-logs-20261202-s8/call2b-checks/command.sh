#!/usr/bin/env bash
# Session 8 call 2b (same machine as 2a, its build reused): flashattn check --backend cuda --tier full
# (forward); compute-sanitizer memcheck, racecheck and synccheck on the forward sweeps (quick tier); the
# decode latency of B 1 at L 1k and 8k against the split count (graph replay, bench/decode_once.py).
set -uo pipefail
export FLASHATTN_COMMIT=74a90e4
L=$OUT/logs; mkdir -p $L
B=build-gpu; T=$B/tests/flashattn_tests_gpu
timeout 170 $B/flashattn check --backend cuda --tier full --op fwd --quiet --json $OUT/check_full_fwd.json \
  > $L/check_full_fwd.log 2>&1; echo "check rc=$?"; tail -2 $L/check_full_fwd.log
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 $T \
    --gtest_filter='CudaForwardSm80.SweepMatchesOracle:CudaForwardSm90.SweepMatchesOracle' > $L/$tool.log 2>&1
  echo "$tool rc=$?"; tail -2 $L/$tool.log
done
for len in 1024 8192; do
  for s in 0 1 2 4 8 16 32; do
    echo "== B 1 L $len num_splits $s"
    PYTHONPATH=$B/python:bench timeout 30 python3 bench/decode_once.py --batch 1 --length $len --num-splits $s --time 50 \
      2>&1 | grep -E "splits|graph replay|peers.time_ms|Error|error" | cut -c1-200
  done
done 2>&1 | tee $L/decode_splits.log
