#!/usr/bin/env bash
# Session 12 call 1: the sm90 backward with dQ issued before dK (dK runs under the dQ staging) and explicit
# shared-memory stores for dS / P (stmatrix) and dQ (st.shared) (FLASHATTN_COMMIT) against 3ea39c1, D 64, 128
# and 256 bf16 kernels for 90a: scripts/ab over the backward grid (two interleaved runs each, cuDNN in a run
# of its own); then the sm90 backward tests (quick tier) and memcheck / racecheck on their edge subsets.
set -uo pipefail
export FLASHATTN_COMMIT=66f526f
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 AB_PEERS_ARGS="--op bwd --head-dims 128,64,256" timeout 420 scripts/ab $L/ab .ab/base.tar \
  > $L/ab_summary.log 2>&1; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
tail -1 $L/ab/change/pytest.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 80 $T --gtest_filter='CudaBackwardSm90.*' > $L/tests_bwd.log 2>&1
echo "bwd tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|tests ran" $L/tests_bwd.log | head -20
FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.VarlenUnusedKeys:CudaBackwardSm90.VarlenCausalRowsWithoutKeys' \
  > $L/memcheck_bwd.log 2>&1; echo "memcheck rc=$?"; tail -1 $L/memcheck_bwd.log
FLASHATTN_GPU_TIER=quick timeout 40 compute-sanitizer --tool racecheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys' > $L/racecheck_bwd.log 2>&1; echo "racecheck rc=$? at $((SECONDS - t0)) s"; tail -1 $L/racecheck_bwd.log
