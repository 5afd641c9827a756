#!/usr/bin/env bash
# Session 13 call 6 (the same warm machine and build-gpu, 616830c; run as one command line): the e2e
# training workload at S 4096 with the session's backward, flashattn, cuDNN and FA2 in one run (train.py
# also repeats the longest-sequence search); part bench/results/e2e-parts-20261203/training-4k-s13.json.
export FLASHATTN_COMMIT=616830c PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1; mkdir -p $OUT/logs; t0=$SECONDS
timeout 200 python3 bench/e2e/report.py run --workloads training --time-limit 170 --train-args "--seqlens 4096 --attention flashattn,cudnn,fa2" \
  --scratch $OUT/logs/scratch-training-4k --json $OUT/e2e-part-training-4k.json > $OUT/logs/e2e_training_4k.log 2>&1
cd $OUT && tar czf logs.tgz logs && rm -rf logs
