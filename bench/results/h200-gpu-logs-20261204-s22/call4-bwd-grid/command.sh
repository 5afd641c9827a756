#!/usr/bin/env bash
# Session 22 call 4 (fresh machine): main at 947ef61 (the 64-row D 256 backward of call 3) built for D 64 /
# 128 / 256, bf16, with the torch binding; the backward grid, flashattn and cuDNN in one process (2 ms host
# lead) -> bench/results/h200-bwd-20261204-s22.json; then compute-sanitizer racecheck of the deterministic
# reruns (cut by its time limit in call 3).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 280 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log; grep -A1 'bwd_sm90' $L/gpu/kernels.txt | head -8
PYTHONPATH=build-gpu/python timeout 170 python3 bench/peers.py --op bwd --impls flashattn,cudnn --head-dims 128,64,256 \
  --host-lead-us 2000 --json $L/h200-bwd-20261204-s22.json > $L/peers_bwd.log 2>&1
echo "grid rc=$? at $((SECONDS - t0)) s"; tail -45 $L/peers_bwd.log
FLASHATTN_GPU_TIER=quick timeout 100 compute-sanitizer --tool racecheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.DeterministicRerunsAreBitwiseIdentical' > $L/sanitizer_racecheck.log 2>&1
echo "racecheck rc=$? at $((SECONDS - t0)) s"; grep -E "RACECHECK SUMMARY|hazard|PASSED|FAILED|OK \]" $L/sanitizer_racecheck.log | head -4
echo "done at $((SECONDS - t0)) s"
