#!/usr/bin/env bash
# Session 12 call 4 (call 3's warm machine, its build-gpu, 66f526f; run as one command line): the 2k-prompt
# concurrency-32 cells call 2's time limit skipped, all four attentions in one part; then the long-context
# GQA backward grid, flashattn against cuDNN.
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 FLASHATTN_COMMIT=66f526f; mkdir -p $OUT/logs; t0=$SECONDS
timeout 190 python3 bench/e2e/report.py run --workloads serving --time-limit 140 --serve-args "--prompts 2048 --concurrency 32 --repeats 2" --scratch $OUT/logs/scratch-2k-c32 --json $OUT/e2e-part-serving-2k-c32.json > $OUT/logs/e2e_2k_c32.log 2>&1
echo "2k c32 rc=$? at $((SECONDS-t0)) s"; tail -5 $OUT/logs/e2e_2k_c32.log
timeout 130 python3 bench/peers.py --op bwd --grid gqa-long --impls flashattn,cudnn --json $OUT/h200-bwd-gqa-long.json > $OUT/logs/peers_bwd_gqa.log 2>&1
echo "gqa rc=$? at $((SECONDS-t0)) s"; tail -9 $OUT/logs/peers_bwd_gqa.log; cd $OUT && tar czf logs.tgz logs && rm -rf logs
