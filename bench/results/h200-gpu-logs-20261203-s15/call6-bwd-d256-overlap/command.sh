#!/usr/bin/env bash
# Session 15 call 6 (fresh machine): the D 256 backward's step overlap (the next step's Sᵀ / dPᵀ issued
# behind dK) against fc85bdc, D 256 kernels only (bf16), backward grid at D 256, 2 ms lead, two interleaved
# runs a side, cuDNN after; then the sm90 backward tests at the quick tier on the
# change's build (D 256 kernels) and memcheck on the varlen and off-tile-length cases.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="256" AB_RUNS=2 AB_CHANGE_STEPS=build \
  AB_PEERS_ARGS="--op bwd --head-dims 256" timeout 300 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 100 $T --gtest_filter='CudaBackwardSm90.*' > $L/tests_bwd.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|^\[       OK" $L/tests_bwd.log | head -20
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.VarlenCausalRowsWithoutKeys' > $L/memcheck_bwd.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -n 1 $L/memcheck_bwd.log
