#!/usr/bin/env bash
# Session 25 call 5 (the machine of calls 3-4, build-gpu of 2e43992): the two CudaBackwardSm90 tests that
# call 4's 230-second limit cut, at the full tier.
mkdir -p $OUT/logs; FLASHATTN_GPU_TIER=full timeout 150 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaBackwardSm90.ABatchOf60IsStableAcrossReruns:CudaBackwardSm90.CallerWorkspace' > $OUT/logs/tests_full_rest.log 2>&1; echo "rc=$?"; grep -E "OK \]|PASSED|FAILED" $OUT/logs/tests_full_rest.log
