#!/usr/bin/env bash
# Session 24 call 5: a 3-stage Q / dO ring for the D 64 and D 128 backward (change commit in
# .ab/change_commit) A/B'd against 18702ab (2 stages) on the D 64 + 128 backward grid. D 64 / 128 kernels,
# bf16; a subset of CudaBackwardSm90.* at the quick tier while the base builds.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_TESTS='CudaBackwardSm90.Sweep*:CudaBackwardSm90.Varlen*:CudaBackwardSm90.NonContiguous*:CudaBackwardSm90.Deterministic*' \
  AB_PEERS_ARGS="--op bwd --head-dims 64,128" timeout 300 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
