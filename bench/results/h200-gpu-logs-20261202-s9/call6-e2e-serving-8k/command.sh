#!/usr/bin/env bash
# Session 9 call 6 (same warm machine and build): the e2e serving workload, 8k prompts, concurrency 1, 8, 32.
mkdir -p $OUT/logs; PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 FLASHATTN_COMMIT=f8e2183 timeout 255 python3 bench/e2e/report.py run --workloads serving --serve-args "--prompts 8192 --concurrency 1,8,32 --repeats 2" --json $OUT/e2e-part-serving-8k.json > $OUT/logs/e2e_serving_8k.log 2>&1; echo "rc=$?"; tail -20 $OUT/logs/e2e_serving_8k.log
