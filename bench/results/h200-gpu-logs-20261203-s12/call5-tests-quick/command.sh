#!/usr/bin/env bash
# Session 12 call 5 (the warm machine's build-gpu: D 64/128/256 bf16 for 90a at 66f526f; one command line):
# every GPU test at the quick tier, then synccheck on a backward subset.
mkdir -p $OUT/logs; t0=$SECONDS
FLASHATTN_GPU_TIER=quick timeout 200 build-gpu/tests/flashattn_tests_gpu > $OUT/logs/tests_all_quick.log 2>&1
echo "all quick rc=$? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/logs/tests_all_quick.log | head
FLASHATTN_GPU_TIER=quick timeout 40 compute-sanitizer --tool synccheck --error-exitcode 1 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys' > $OUT/logs/synccheck_bwd.log 2>&1
echo "synccheck rc=$? at $((SECONDS-t0)) s"; tail -1 $OUT/logs/synccheck_bwd.log; cd $OUT && tar czf logs.tgz logs && rm -rf logs
