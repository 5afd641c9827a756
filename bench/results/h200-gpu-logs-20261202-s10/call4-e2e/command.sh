#!/usr/bin/env bash
# Session 10 call 4 (call 3's warm machine and build, 967c9e0): the e2e serving workload with 8k and 32k
# prompts at concurrency 1/8/32 (flashattn, cuDNN, FA2; the math path runs out of memory there), then the
# quality workload (report parts).
set -uo pipefail
export FLASHATTN_COMMIT=967c9e0
L=$OUT/logs; mkdir -p $L; B=build-gpu; ls $B/python > /dev/null || exit 3
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 400 python3 bench/e2e/report.py run --workloads serving \
  --serve-args "--prompts 8192,32768 --concurrency 1,8,32 --repeats 2 --attention flashattn,cudnn,fa2" \
  --json $OUT/e2e-part-serving-8k-32k.json > $L/e2e_serving_8k_32k.log 2>&1; echo "e2e serving rc=$?"
grep -E "tok/s|FAILED" $L/e2e_serving_8k_32k.log
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 160 python3 bench/e2e/report.py run --workloads quality \
  --json $OUT/e2e-part-quality.json > $L/e2e_quality.log 2>&1; echo "e2e quality rc=$?"; tail -12 $L/e2e_quality.log
