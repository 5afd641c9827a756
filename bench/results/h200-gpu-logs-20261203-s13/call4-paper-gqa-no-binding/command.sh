#!/usr/bin/env bash
# Session 13 call 4 (call 3's warm machine; run as one command line): the backward grid and the long-context
# GQA grid with flashattn and cuDNN in one process each, for the committed JSON. Every flashattn cell
# failed: call 3 had built the change with AB_CHANGE_STEPS=build, and scripts/gpu built the torch binding
# only for its pytest or peers steps, so build-gpu/python held no module (the same failure made call 3's
# A/B of the change empty: its ab.txt holds no ratios). Fixed after the session's calls: scripts/gpu's
# "torch" step, which scripts/ab now always adds. Only the logs are kept (cuDNN's rows are in call 5).
export PYTHONPATH=build-gpu/python FLASHATTN_COMMIT=616830c; mkdir -p $OUT/logs; t0=$SECONDS
timeout 200 python3 bench/peers.py --op bwd --impls flashattn,cudnn --head-dims 128,64,256 --json $OUT/h200-bwd-paper.json > $OUT/logs/paper.log 2>&1
timeout 170 python3 bench/peers.py --op bwd --grid gqa-long --impls flashattn,cudnn --json $OUT/h200-bwd-gqa-long.json > $OUT/logs/gqa.log 2>&1
