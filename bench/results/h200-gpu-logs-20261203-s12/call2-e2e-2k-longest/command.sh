#!/usr/bin/env bash
# Session 12 call 2: the e2e parts never measured (FLASHATTN_COMMIT): serving with 2k prompts at concurrency
# 1/8/32 for all four attentions (flashattn, cuDNN, FA2, math), then training's longest-sequence search from
# S = 8192 (each in its own report.py run with a time limit, its JSON rewritten after every cell).
set -uo pipefail
export FLASHATTN_COMMIT=66f526f PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
mkdir -p $OUT/logs; t0=$SECONDS
source bench/results/h200-gpu-logs-20261203-s12/e2e_build.sh
timeout 200 python3 bench/e2e/report.py run --workloads serving --time-limit 140 \
  --serve-args "--prompts 2048 --concurrency 1,8,32 --repeats 2" --scratch $OUT/logs/scratch-serving-2k --json $OUT/e2e-part-serving-2k.json \
  > $OUT/logs/e2e_serving_2k.log 2>&1; echo "serving 2k rc=$? at $((SECONDS - t0)) s"; tail -4 $OUT/logs/e2e_serving_2k.log
timeout $((560 - (SECONDS - t0))) python3 bench/e2e/report.py run --workloads training --time-limit $((480 - (SECONDS - t0))) \
  --train-args "--seqlens 8192" --scratch $OUT/logs/scratch-training-longest --json $OUT/e2e-part-training-longest.json \
  > $OUT/logs/e2e_training_longest.log 2>&1; echo "training rc=$? at $((SECONDS - t0)) s"; tail -8 $OUT/logs/e2e_training_longest.log
