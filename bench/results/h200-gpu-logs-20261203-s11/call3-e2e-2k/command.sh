#!/usr/bin/env bash
# Session 11 call 3: main (FLASHATTN_COMMIT), D 64 bf16 kernels for 90a with the torch binding (the e2e
# models' head dim): the e2e serving workload with 2k prompts at concurrency 1/8/32, all four attentions
# (a report part; --time-limit ends it cleanly before the call's limit).
set -uo pipefail
export FLASHATTN_COMMIT=08cfd59 FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS=64 FLASHATTN_DTYPES=bf16
L=$OUT/logs; mkdir -p $L
FLASHATTN_GPU_STEPS="build pytest" timeout 230 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
tail -4 $L/build_summary.log; tail -1 $L/build/pytest.log
PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 timeout 330 python3 bench/e2e/report.py run --workloads serving \
  --serve-args "--prompts 2048 --concurrency 1,8,32 --repeats 2 --attention flashattn,cudnn,fa2,math" \
  --time-limit 270 --json $OUT/e2e-part-serving-2k.json > $L/e2e_serving_2k.log 2>&1; echo "e2e 2k rc=$?"
grep -E "tok/s|FAILED|tokens_per_s" $L/e2e_serving_2k.log | cut -c1-300 | tail -14
rm -f $L/build/build.log
