#!/usr/bin/env bash
# Session 25 call 6 (the machine of calls 3-5, build-gpu of 2e43992): the long-context GQA backward grid,
# flashattn and cuDNN in one process.
mkdir -p $OUT/logs; export FLASHATTN_COMMIT=$(cat .ab/change_commit) PYTHONPATH=build-gpu/python; timeout 130 python3 bench/peers.py --host-lead-us 2000 --op bwd --grid gqa-long --impls flashattn,cudnn --json $OUT/logs/h200-bwd-gqa-long-20261204-s25.json > $OUT/logs/peers_bwd_gqa.log 2>&1; echo "rc=$?"; tail -10 $OUT/logs/peers_bwd_gqa.log
