#!/usr/bin/env bash
# Session 13 call 5 (the same warm machine; run as one command line): build-gpu reconfigured with the torch
# binding and only the binding built (31 s; the kernels of call 3's build reused), then the A/B of call 3
# again: 616830c against 90b94d4 (call 3's base build under /tmp), two interleaved runs each over the
# backward grid; then flashattn and cuDNN in one process over the same grid (bench/results/
# h200-bwd-20261203-s13.json, also the A/B's cuDNN column) and over the long-context GQA grid
# (h200-bwd-20261203-s13-gqa-long.json). The device returns at most 8 files: change_2.json and the logs
# after change_1.json did not come back (ab.txt has both runs).
export FLASHATTN_COMMIT=616830c; mkdir -p $OUT/logs; L=$OUT/logs; t0=$SECONDS
cmake -S . -B build-gpu -DFLASHATTN_TORCH=ON > $L/reconf.log 2>&1 && cmake --build build-gpu -j 16 --target flashattn_torch > $L/torch_build.log 2>&1
export PYTHONPATH=build-gpu/python; B=$(ls -d /tmp/tmp.*/base/build/python | head -1); P="--op bwd --head-dims 128,64,256"
for r in 1 2; do
  timeout 60 python3 bench/peers.py --impls flashattn --json $L/change_$r.json $P > $L/change_$r.log 2>&1
  PYTHONPATH=$B FLASHATTN_COMMIT=90b94d4 timeout 60 python3 bench/peers.py --impls flashattn --json $L/base_$r.json $P > $L/base_$r.log 2>&1
done
timeout 60 python3 bench/peers.py --impls flashattn,cudnn --json $OUT/h200-bwd-paper.json $P > $L/paper.log 2>&1
python3 bench/ab_compare.py --a $L/change_1.json $L/change_2.json --b $L/base_1.json $L/base_2.json --peer cudnn --peer-runs $OUT/h200-bwd-paper.json | tee $L/ab.txt
timeout 100 python3 bench/peers.py --op bwd --grid gqa-long --impls flashattn,cudnn --json $OUT/h200-bwd-gqa-long.json > $L/gqa.log 2>&1
