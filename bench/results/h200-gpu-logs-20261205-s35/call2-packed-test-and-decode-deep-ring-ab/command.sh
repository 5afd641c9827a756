#!/usr/bin/env bash
# Session 35, call 2: (1) the packed GQA test of b7e6589 (the round rule), which ran out of call 1's 45 s, from
# the binaries built on the CPU machine (build-bin, 2d4f475: the same packing code and test as main on a
# 132-SM part), quick tier; (2) session 29's prepared decode A/B of the D 128 6-stage ring (b7f18e1, cherry-
# picked as the working tree) against main (../../h200-gpu-logs-20261204-s29/prepared-decode-deep-ring-ab-and-sweeps/),
# fitted to 560 s: the split sweeps each run only while the call's time allows them.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' &&
#   gzip .ab/base.tar && git cherry-pick b7f18e1 && git rev-parse HEAD > .ab/change_commit
# Carry [".ab", "third_party/cutlass", "build-bin"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 560).
set -uo pipefail
FLASHATTN_COMMIT=$(cat .ab/change_commit); export FLASHATTN_COMMIT
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_GPU_TIER=quick timeout 40 build-bin/flashattn_tests_gpu --gtest_filter='CudaForwardSm90.GqaPackedTilesMatchOracle' \
  > "$L/packed_test.log" 2>&1
echo "packed test rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|Failure|packed_heads" "$L/packed_test.log" | head
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="128" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_TESTS='KVCacheCuda.*' \
  AB_TESTS_TIMEOUT=120 AB_TESTS_GATE=1 AB_PEERS_ARGS="--op decode" \
  timeout 300 scripts/ab "$L/ab" .ab/base.tar > "$L/ab.log" 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" "$L/ab.log"; cat "$L/ab/ab.txt"
grep -hE "OK|PASSED|FAILED|SKIPPED|tests," "$L"/ab/tests*.log | head -14
rm -rf "$L/ab/change/build.log"
grep -q "PASSED" "$L/ab/tests.log" || { echo "the change's tests did not pass: nothing more"; exit 0; }
base=$(awk '$1 == "base" {print $2}' "$L/ab/trees.txt")
sweep() {  # name, python path, limit, decode_splits.py arguments; runs only if the call has the time
  local name=$1 path=$2 limit=$3; shift 3
  (( SECONDS - t0 + limit > 545 )) && { echo "$name skipped (no time)"; return; }
  PYTHONPATH=$path timeout "$limit" python3 bench/decode_splits.py --samples 30 --json "$L/$name.json" "$@" \
    > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - t0)) s"
}
sweep splits_paged16_change build-gpu/python 60 --page-size 16 --batches 4,16,64 --lengths 1024,8192,32768 \
  --splits 0,1,2,4,8
sweep splits_paged16_base "$base/build/python" 60 --page-size 16 --batches 4,16,64 --lengths 1024,8192,32768 \
  --splits 0,1,2,4,8
sweep splits_dense_change build-gpu/python 90 --batches 1,4,16 --lengths 1024,8192,32768,131072 \
  --splits 0,1,2,4,8,16,17,32
sweep splits_dense_base "$base/build/python" 50 --batches 1,4 --lengths 32768,131072 --splits 0,8,16,17,24,32
[[ -f $L/splits_paged16_base.json ]] &&
  python3 bench/decode_splits_report.py "$L/splits_paged16_change.json" "$L/splits_paged16_base.json" --vs
[[ -f $L/splits_dense_base.json ]] &&
  python3 bench/decode_splits_report.py "$L/splits_dense_change.json" "$L/splits_dense_base.json" --vs
echo "done at $((SECONDS - t0)) s"
