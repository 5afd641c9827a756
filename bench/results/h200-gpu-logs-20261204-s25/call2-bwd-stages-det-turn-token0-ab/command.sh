#!/usr/bin/env bash
# Session 25 call 2: three prepared backward candidates A/B'd together against 05df219 (change commit in
# .ab/change_commit) on the D 64 + 128 backward grid, default and deterministic rows: a fourth Q / dO stage
# at D 64 (ac731e5), the deterministic dQ turn passed on after the next step's reduce-adds are issued
# (1c1ee8f), the sequence's workspace token once per CTA (a1f645a, as an int). D 64 / 128 kernels, bf16;
# CudaBackwardSm90.* at the quick tier while the base builds; memcheck and synccheck of the deterministic
# test (the held turn).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn,flashattn_det \
  AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd --head-dims 64,128" \
  timeout 450 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
for tool in memcheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaBackwardSm90.Deterministic*' > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_$tool.log | head -4
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
