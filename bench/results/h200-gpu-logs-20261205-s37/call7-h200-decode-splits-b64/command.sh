#!/usr/bin/env bash
# Session 37, call 7 (same warm H200): B 64's decode cells ran 0.91x cuDNN dense in calls 5-6 (L 1k, L 32k)
# where session 23 had 0.99: the split sweep of those cells, dense and paged 16, outside peers.py.
L=$OUT/logs; mkdir -p $L; for ps in 0 16; do PYTHONPATH=build-gpu/python timeout 50 python3 bench/decode_splits.py --batches 64 --lengths 1024,32768 --splits 0,1,2,3,4 --page-size $ps --samples 30 --json $L/splits_b64_p$ps.json > $L/splits_b64_p$ps.log 2>&1; echo "rc=$?"; tail -14 $L/splits_b64_p$ps.log; done; cd $OUT && tar czf logs.tgz logs && rm -rf logs
