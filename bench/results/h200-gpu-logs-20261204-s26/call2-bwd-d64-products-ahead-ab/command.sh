#!/usr/bin/env bash
# Session 26 call 2: the next step's Sᵀ and dPᵀ issued right after this step's dQ and dK at D 64 (change
# commit in .ab/change_commit) A/B'd against 6296f9e on the D 64 + 128 backward grid (D 128: the
# restructured step loop without products ahead, expected unchanged), default and deterministic rows.
# D 64 / 128 kernels, bf16. CudaBackwardSm90.* at the quick tier while the base builds; memcheck of the
# varlen / off-tile tests and racecheck of the varlen causal test (the next stage's zeroing moved into
# the step), synccheck of the deterministic test.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn,flashattn_det \
  AB_TESTS='CudaBackwardSm90.*:CudaBackwardSm80.Deterministic*' AB_PEERS_ARGS="--op bwd --head-dims 64,128" \
  timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
san() {  # tool, filter, limit
  FLASHATTN_GPU_TIER=quick timeout $3 compute-sanitizer --tool $1 build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter="$2" > $L/sanitizer_$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/sanitizer_$1.log | head -4
}
san memcheck 'CudaBackwardSm90.Varlen*:CudaBackwardSm90.LengthsOffTileMultiples' 60
san synccheck 'CudaBackwardSm90.Deterministic*' 45
san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 60
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
