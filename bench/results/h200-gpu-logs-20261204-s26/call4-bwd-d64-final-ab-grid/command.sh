#!/usr/bin/env bash
# Session 26 call 4: the kept backward (D 64 products ahead, run_steps written out so that D 128's and
# D 256's SASS are 6296f9e's; change commit in .ab/change_commit), D 64 / 128 / 256 kernels, bf16:
# A/B against 6296f9e on the D 64 backward grid with the deterministic rows, CudaBackwardSm90.* at the
# quick tier while the base builds; then the backward grid with flashattn, flashattn_det and cuDNN in one
# process; memcheck of the varlen and off-tile tests.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn,flashattn_det \
  AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd --head-dims 64" \
  timeout 300 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
export PYTHONPATH=build-gpu/python
timeout 170 python3 bench/peers.py --host-lead-us 2000 --op bwd --impls flashattn,flashattn_det,cudnn \
  --head-dims 128,64,256 --json $L/h200-bwd-20261204-s26.json > $L/peers_bwd.log 2>&1
echo "bwd grid rc=$? at $((SECONDS - t0)) s"; tail -42 $L/peers_bwd.log
FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.Varlen*:CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_memcheck.log | head -4
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
