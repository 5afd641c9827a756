#!/usr/bin/env bash
# Session 28 call 2: the persistent backward (session 27's 22b6390, rebased onto the kept D 64 dQ by head-dim
# halves and step 0's early lse / D: kv_full's wait moved into consume(), one phase a tile) together with D 64's
# epilogue staged in the dS buffer (1e654fc), as the working tree, against the kept kernels (base tarball of
# branch `kept`, 86e7306), D 64 / 128 / 256 grid, default rows; CudaBackwardSm90.* at the quick tier under a
# timeout (a barrier-protocol error across tiles would hang); then racecheck / synccheck / memcheck of the tests
# that cross tiles in most ways (varlen, deterministic, off-tile lengths).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn AB_TESTS='CudaBackwardSm90.*' AB_TESTS_TIMEOUT=120 \
  AB_PEERS_ARGS="--op bwd --head-dims 64,128,256" timeout 430 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -hE "PASSED|FAILED|tests," $L/ab/tests*.log | head -20
rm -rf $L/ab/change/build.log
san() {  # tool, filter, limit
  FLASHATTN_GPU_TIER=quick timeout $3 compute-sanitizer --tool $1 build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter="$2" > $L/sanitizer_$1.log 2>&1
  echo "$1 rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $L/sanitizer_$1.log | head -4
}
san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 45
san synccheck 'CudaBackwardSm90.Deterministic*' 40
san memcheck 'CudaBackwardSm90.Varlen*:CudaBackwardSm90.LengthsOffTileMultiples' 40
echo "done at $((SECONDS - t0)) s"
