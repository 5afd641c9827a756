#!/usr/bin/env bash
# Session 23 call 4 (fresh machine): main (commit in .ab/change_commit: the D 256 backward with dQ slice 1
# staged in the next step and the rotated walk for full attention, the decode combine's batched split loads)
# built for D 64 / 128 / 256, bf16, with the torch binding. CudaBackwardSm90.* and KVCacheCuda.* at the quick
# tier; the backward grid, flashattn and cuDNN in one process -> h200-bwd-20261204-s23.json; the decode grid,
# flashattn (dense, paged 16), cuDNN and FA2 in one process -> h200-decode-20261204-s23.json (both 2 ms host
# lead); then ncu --set full of the D 256 backward at B 1 H 8 S 16k full (details + per-SASS samples).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 240 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log; grep -A1 'bwd_sm90' $L/gpu/kernels.txt | head -8
FLASHATTN_GPU_TIER=quick timeout 90 build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.*:KVCacheCuda.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $L/tests.log | head
export PYTHONPATH=build-gpu/python
P="python3 bench/peers.py --host-lead-us 2000"
timeout 150 $P --op bwd --impls flashattn,cudnn --head-dims 128,64,256 --json $L/h200-bwd-20261204-s23.json \
  > $L/peers_bwd.log 2>&1
echo "bwd grid rc=$? at $((SECONDS - t0)) s"; tail -40 $L/peers_bwd.log
timeout 120 $P --op decode --impls flashattn,cudnn,fa2 --json $L/h200-decode-20261204-s23.json > $L/peers_decode.log 2>&1
echo "decode grid rc=$? at $((SECONDS - t0)) s"; tail -22 $L/peers_decode.log
timeout 90 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_bwd256 \
  build-gpu/flashattn bench --backend cuda --op bwd --batch 1 --heads 8 --seqlen-q 16384 --head-dim 256 \
  --samples 2 --warmup 1 --quiet > $L/ncu_bwd256.log 2>&1
echo "ncu rc=$? at $((SECONDS - t0)) s"
ncu -i $L/ncu_bwd256.ncu-rep --page details > $L/ncu_bwd256_details.txt 2>&1
ncu -i $L/ncu_bwd256.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_bwd256_sass.csv.gz
rm -f $L/*.ncu-rep
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Executed Ipc A" $L/ncu_bwd256_details.txt | head
echo "done at $((SECONDS - t0)) s"
