#!/usr/bin/env bash
# Session 9 call 5 (on call 4's warm machine and build): the e2e serving workload, 32k prompts, concurrency 1
# and 32, two timed repeats (issue 8, a report part).
mkdir -p $OUT/logs; ls build-gpu/python >/dev/null && PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 FLASHATTN_COMMIT=f8e2183 timeout 400 python3 bench/e2e/report.py run --workloads serving --serve-args "--prompts 32768 --concurrency 1,32 --repeats 2" --json $OUT/e2e-part-serving-32k.json > $OUT/logs/e2e_serving.log 2>&1; echo "rc=$?"; tail -30 $OUT/logs/e2e_serving.log
