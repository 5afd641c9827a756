#!/usr/bin/env bash
# Session 11 call 4 (call 3's warm machine and build of FLASHATTN_COMMIT, D 64 bf16, 90a, torch binding):
# the e2e serving workload with 32k prompts at concurrency 8 and 32 (flashattn, cuDNN, FA2; the math path
# runs out of memory there), then training's longest-sequence search from 4k (a report part each).
set -uo pipefail
export FLASHATTN_COMMIT=08cfd59 FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS=64 FLASHATTN_DTYPES=bf16
L=$OUT/logs; mkdir -p $L
if [[ ! -d build-gpu/python ]]; then  # a cold machine: build again
  FLASHATTN_GPU_STEPS="build pytest" timeout 230 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
  rm -f $L/build/build.log
fi
PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 timeout 320 python3 bench/e2e/report.py run --workloads serving \
  --serve-args "--prompts 32768 --concurrency 8,32 --repeats 2 --attention flashattn,cudnn,fa2" \
  --time-limit 250 --json $OUT/e2e-part-serving-32k.json > $L/e2e_serving_32k.log 2>&1; echo "e2e 32k rc=$?"
grep -E "tokens_per_s|FAILED" $L/e2e_serving_32k.log | cut -c1-300 | tail -8
PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 timeout 250 python3 bench/e2e/report.py run --workloads training \
  --train-args "--seqlens 4096" --time-limit 190 --json $OUT/e2e-part-training-longest.json \
  > $L/e2e_training_longest.log 2>&1; echo "e2e training rc=$?"; tail -6 $L/e2e_training_longest.log | cut -c1-300
