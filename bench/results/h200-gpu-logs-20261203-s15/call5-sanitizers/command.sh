#!/usr/bin/env bash
# Session 15 call 5 (fresh machine; build-bin/ = b70cb00, whose forward kernels are main's): synccheck and
# racecheck over the sm90 forward sweep at the quick tier (D 64 / 128 / 256 kernels of both tiles, bf16 and
# fp16) and the D 256 tile-choice test, the new D 256 80-key tile among them.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
T=build-bin/flashattn_tests_gpu
for tool in synccheck racecheck; do
  FLASHATTN_GPU_TIER=quick timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 $T \
    --gtest_filter='CudaForwardSm90.SweepMatchesOracle:CudaForwardSm90.HeadDim256*' > $L/$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "PASSED|FAILED|SUMMARY" $L/$tool.log | tail -3
done
