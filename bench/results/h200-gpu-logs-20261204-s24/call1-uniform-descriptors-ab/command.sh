#!/usr/bin/env bash
# Session 24 call 1: three prepared candidates A/B'd together against c9e71e5 (change commit in
# .ab/change_commit), each on the grid of the kernel it alone touches: the keys split's uniform wgmma
# descriptors (bce3b75, D 64 / 128 backward) on the D 64 + 128 backward grid; the D 256 backward's uniform
# descriptors (d6a0854) on the D 256 backward grid; the forward's uniform Q descriptors (0f891c4) on the
# forward grid. The change also moves the rotated walk's rule to core::bwd_rotated_walk (no behaviour change).
# All head dims, bf16; CudaBackwardSm90.* and CudaForwardSm90.* at the quick tier while the base builds.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*:CudaForwardSm90.*' \
  FLASHATTN_GPU_TIER=quick AB_PEERS_ARGS="--op bwd --head-dims 64,128; --op bwd --head-dims 256; --op fwd" \
  timeout 540 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
echo "done at $((SECONDS - t0)) s"
