#!/usr/bin/env bash
# Session 12 call 3: serving at concurrency 8 with 8k prompts, and with 32k prompts at concurrency 8 and 32
# (micro-batched prefill), flashattn / cuDNN / FA2 (math runs out of memory at 32k, session 9); first, the
# dense-cache stride probe of PERF.md's open decode question (pure PyTorch, cuDNN).
set -uo pipefail
export FLASHATTN_COMMIT=66f526f PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
mkdir -p $OUT/logs; t0=$SECONDS
timeout 40 python3 bench/decode_stride_probe.py $OUT/decode_stride_probe.json > $OUT/logs/decode_probe.log 2>&1
echo "probe rc=$? at $((SECONDS - t0)) s"; tail -8 $OUT/logs/decode_probe.log
source bench/results/h200-gpu-logs-20261203-s12/e2e_build.sh
timeout 150 python3 bench/e2e/report.py run --workloads serving --time-limit 80 \
  --serve-args "--prompts 8192 --concurrency 8 --repeats 2 --attention flashattn,cudnn,fa2" \
  --scratch $OUT/logs/scratch-serving-8k-c8 --json $OUT/e2e-part-serving-8k-c8.json > $OUT/logs/e2e_serving_8k_c8.log 2>&1
echo "serving 8k c8 rc=$? at $((SECONDS - t0)) s"; tail -4 $OUT/logs/e2e_serving_8k_c8.log
timeout $((560 - (SECONDS - t0))) python3 bench/e2e/report.py run --workloads serving --time-limit $((440 - (SECONDS - t0))) \
  --serve-args "--prompts 32768 --concurrency 8,32 --repeats 2 --attention flashattn,cudnn,fa2" \
  --scratch $OUT/logs/scratch-serving-32k --json $OUT/e2e-part-serving-32k.json > $OUT/logs/e2e_serving_32k.log 2>&1
echo "serving 32k rc=$? at $((SECONDS - t0)) s"; tail -6 $OUT/logs/e2e_serving_32k.log
