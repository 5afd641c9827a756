#!/usr/bin/env bash
# Session 11 call 2: the sm90 backward with lse and D bulk-copied by the producer with each step's Q and dO
# (FLASHATTN_COMMIT) against 9574682 (the consumers loaded them one step ahead), D 64 and 128 bf16 kernels
# for 90a: scripts/ab over the backward grid (two interleaved runs each, cuDNN in a run of its own); the
# sm90 and sm80 backward tests (quick tier, the workspace layout changed for both) and memcheck / racecheck
# on their edge subsets.
set -uo pipefail
export FLASHATTN_COMMIT=ed28f7d
L=$OUT/logs; mkdir -p $L
FLASHATTN_HEAD_DIMS="64;128" AB_RUNS=2 AB_PEERS_ARGS="--op bwd --head-dims 128,64" timeout 400 scripts/ab $L/ab .ab/base.tar \
  > $L/ab_summary.log 2>&1; echo "ab rc=$?"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
tail -1 $L/ab/change/pytest.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 90 $T --gtest_filter='CudaBackwardSm90.*:CudaBackwardSm80.*' > $L/tests_bwd.log 2>&1
echo "bwd tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|tests ran" $L/tests_bwd.log | head -20
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.VarlenUnusedKeys:CudaBackwardSm90.VarlenCausalRowsWithoutKeys' \
  > $L/memcheck_bwd.log 2>&1; echo "memcheck rc=$?"; tail -1 $L/memcheck_bwd.log
FLASHATTN_GPU_TIER=quick timeout 50 compute-sanitizer --tool racecheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys' > $L/racecheck_bwd.log 2>&1; echo "racecheck rc=$?"; tail -1 $L/racecheck_bwd.log
