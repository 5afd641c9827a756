#!/usr/bin/env bash
# Session 9 call 4: main (FLASHATTN_COMMIT) on the H200, every kernel for 90a with the torch binding: pytest
# (issue 7's log), every GPU test at the quick tier (4 at once), the forward grid against cuDNN and FA2 (same
# process, default path), then the end-to-end training workload (issue 8; 1k/4k/16k, no longest-sequence
# search) as a report part.
set -uo pipefail
export FLASHATTN_COMMIT=f8e2183 FLASHATTN_CUDA_ARCHS=90a
L=$OUT/logs; mkdir -p $L
FLASHATTN_GPU_STEPS="build pytest" timeout 200 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
tail -4 $L/build_summary.log; tail -1 $L/build/pytest.log
cp $L/build/pytest.log $OUT/pytest.log
FLASHATTN_GPU_STEPS="ctest" FLASHATTN_GPU_TIER=quick FLASHATTN_CTEST_JOBS=4 FLASHATTN_CTEST_TIMEOUT=100 \
  timeout 130 scripts/gpu $L/tests > $L/tests_summary.log 2>&1; echo "tests rc=$?"
grep -E "tests passed|Failed|FAILED" $L/tests/ctest_gpu.log | tail -8
B=build-gpu
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 100 python3 bench/peers.py --impls flashattn,cudnn,fa2 \
  --json $OUT/peers_fwd.json > $L/peers_fwd.log 2>&1; echo "peers rc=$?"
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 170 python3 bench/e2e/report.py run --workloads training \
  --no-longest --json $OUT/e2e-part-training.json > $L/e2e_training.log 2>&1; echo "e2e training rc=$?"
tail -15 $L/e2e_training.log
rm -f $L/build/build.log
