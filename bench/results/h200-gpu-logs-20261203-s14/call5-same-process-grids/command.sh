#!/usr/bin/env bash
# Session 14 calls 5-7, on call 4's warm machine (its change build, build-gpu = c4e3fe8 with the torch
# binding), three command lines run one after the other: flashattn and cuDNN in one process, 2 ms host lead,
# over the forward grid (D 128; then D 64 and 256), the forward long-context GQA grid, the backward grid and
# the backward long-context GQA grid up to S 32k. JSONs: bench/results/h200-{fwd,bwd}-20261203-s14*.json.
export PYTHONPATH=build-gpu/python FLASHATTN_COMMIT=c4e3fe8
# call 5
python3 bench/peers.py --impls flashattn,cudnn --head-dims 128 --host-lead-us 2000 --json $OUT/h200-fwd-20261203-s14-hd128.json
python3 bench/peers.py --op bwd --grid gqa-long --seqlens 4096,8192,16384,32768 --impls flashattn,cudnn --host-lead-us 2000 \
  --json $OUT/h200-bwd-20261203-s14-gqa-long.json
# call 6
python3 bench/peers.py --op bwd --impls flashattn,cudnn --head-dims 128,64,256 --host-lead-us 2000 --json $OUT/h200-bwd-20261203-s14.json
# call 7
python3 bench/peers.py --impls flashattn,cudnn --head-dims 64,256 --host-lead-us 2000 --json $OUT/h200-fwd-20261203-s14-hd64-256.json
python3 bench/peers.py --grid gqa-long --impls flashattn,cudnn --host-lead-us 2000 --json $OUT/h200-fwd-20261203-s14-gqa-long.json
