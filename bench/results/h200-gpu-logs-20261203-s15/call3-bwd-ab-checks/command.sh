#!/usr/bin/env bash
# Session 15 call 3 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of the
# change, built on the CPU machine). The backward's row statistics read before the wgmma waits (D 64 and
# 256) against 7939e34 (the same code without it), D 64 / 256 backward grid, 2 ms lead, two interleaved runs
# a side, cuDNN after. While the A/B builds: `flashattn check --tier full --op fwd` and the sm90 backward
# tests (quick tier). After it: racecheck on the forward sweeps, memcheck on the backward's edge cases, and
# the portable forward grid with FlashAttention-2 in the same process (issue 3's "same run").
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 AB_CHANGE_STEPS=build \
  AB_PEERS_ARGS="--op bwd --head-dims 64,256" timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1 &
ab=$!
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
timeout 90 build-bin/flashattn check --backend cuda --tier full --op fwd --quiet --json $OUT/check_full_fwd.json \
  > $L/check_full_fwd.log 2>&1; echo "check rc=$? at $((SECONDS - t0)) s"; tail -2 $L/check_full_fwd.log
FLASHATTN_GPU_TIER=quick timeout 60 $T --gtest_filter='CudaBackwardSm90.*' > $L/tests_bwd.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|^\[       OK" $L/tests_bwd.log | head -20
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
FLASHATTN_GPU_TIER=quick timeout 70 compute-sanitizer --tool racecheck --error-exitcode 1 $T \
  --gtest_filter='CudaForwardSm80.SweepMatchesOracle:CudaForwardSm90.HeadDim256*' > $L/racecheck.log 2>&1
echo "racecheck rc=$? at $((SECONDS - t0)) s"; tail -n 2 $L/racecheck.log
FLASHATTN_GPU_TIER=quick timeout 50 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.VarlenCausalRowsWithoutKeys' > $L/memcheck_bwd.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -n 1 $L/memcheck_bwd.log
PYTHONPATH=build-gpu/python timeout 60 python3 bench/peers.py --impls flashattn,fa2 --path portable \
  --json $OUT/h200-fwd-20261203-s15-portable.json > $L/portable_same_process.log 2>&1
echo "portable rc=$? at $((SECONDS - t0)) s"
