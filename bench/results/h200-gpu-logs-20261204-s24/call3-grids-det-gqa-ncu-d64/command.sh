#!/usr/bin/env bash
# Session 24 call 3 (fresh machine): main (commit in .ab/change_commit: the forward's uniform Q descriptors,
# the D 64 backward's own-keys dQ + warpgroup skew) built for D 64 / 128 / 256, bf16, with the torch binding.
# CudaBackwardSm90.* and CudaForwardSm90.* at the full tier; memcheck of one forward and one backward test;
# the backward grid with flashattn, flashattn_det (deterministic=True) and cuDNN in one process; the
# forward grid; the long-context GQA grid, forward and backward; then ncu --set full of the D 64 backward
# at B 1 H 32 S 16k full.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 240 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
FLASHATTN_GPU_TIER=full timeout 100 build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.*:CudaForwardSm90.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $L/tests.log | head
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaForwardSm90.RunInfoNamesTheHopperKernel' \
  > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_memcheck.log | head -4
export PYTHONPATH=build-gpu/python
P="python3 bench/peers.py --host-lead-us 2000"
timeout 150 $P --op bwd --impls flashattn,flashattn_det,cudnn --head-dims 128,64,256 \
  --json $L/h200-bwd-20261204-s24.json > $L/peers_bwd.log 2>&1
echo "bwd grid rc=$? at $((SECONDS - t0)) s"; tail -42 $L/peers_bwd.log
timeout 80 $P --op fwd --impls flashattn,cudnn --json $L/h200-fwd-20261204-s24.json > $L/peers_fwd.log 2>&1
echo "fwd grid rc=$? at $((SECONDS - t0)) s"; tail -40 $L/peers_fwd.log
timeout 60 $P --op fwd --grid gqa-long --impls flashattn,cudnn --json $L/h200-fwd-gqa-long-20261204-s24.json \
  > $L/peers_fwd_gqa.log 2>&1
echo "fwd gqa rc=$? at $((SECONDS - t0)) s"; tail -8 $L/peers_fwd_gqa.log
timeout 80 $P --op bwd --grid gqa-long --impls flashattn,cudnn --json $L/h200-bwd-gqa-long-20261204-s24.json \
  > $L/peers_bwd_gqa.log 2>&1
echo "bwd gqa rc=$? at $((SECONDS - t0)) s"; tail -8 $L/peers_bwd_gqa.log
timeout 60 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_bwd64 \
  build-gpu/flashattn bench --backend cuda --op bwd --batch 1 --heads 32 --seqlen-q 16384 --head-dim 64 \
  --samples 2 --warmup 1 --quiet > $L/ncu_bwd64.log 2>&1
echo "ncu rc=$? at $((SECONDS - t0)) s"
ncu -i $L/ncu_bwd64.ncu-rep --page details > $L/ncu_bwd64_details.txt 2>&1
ncu -i $L/ncu_bwd64.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_bwd64_sass.csv.gz
rm -f $L/*.ncu-rep
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Executed Ipc A" $L/ncu_bwd64_details.txt | head
echo "done at $((SECONDS - t0)) s"
