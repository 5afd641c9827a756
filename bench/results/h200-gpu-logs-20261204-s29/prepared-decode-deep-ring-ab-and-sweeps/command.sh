#!/usr/bin/env bash
# Prepared in session 29 (no machine was lent after its first call): not yet run.
# The decode D 128 candidate b7f18e1 (a 6-stage ring, one CTA per SM) against main:
# (1) scripts/ab on the decode grid (dense and paged 16, two interleaved runs a side, cuDNN after), D 128
#     kernels only, KVCacheCuda.* at the quick tier gating the timing;
# (2) split sweeps (bench/decode_splits.py; split 0 is each build's own choice): paged 16 on both builds
#     (does the base's paged rule leave short caches split where unsplit is faster, as dense at B 16 L 1k:
#     27.5 us against 29.5?), dense on the candidate (the split model's fit with one CTA per SM) and at
#     B 1 / 4, L 32k / 128k on the base. 17 splits is past the cluster limit (16), so it goes through the
#     combine kernel: the nearest to 16 unclustered splits, which no request can ask for. Session 21's
#     sweep suggests clusters pack two CTAs on an SM where the hardware spreads a plain grid (B 4 L 128k:
#     4 clusters-of-4 splits 527 us, where B 16 L 32k unsplit, the same 128 CTAs and bytes, took 483);
# (3) memcheck of the candidate on the page-size / split-count tests (its loop is main's, deeper).
# Prepare on main, from the repository root:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' && gzip .ab/base.tar &&
#   git cherry-pick b7f18e1 && git rev-parse HEAD > .ab/change_commit
# Carry [".ab", "third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 585).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="128" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_TESTS='KVCacheCuda.*' \
  AB_TESTS_TIMEOUT=120 AB_TESTS_GATE=1 AB_PEERS_ARGS="--op decode" \
  timeout 300 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "OK|PASSED|FAILED|SKIPPED|tests," $L/ab/tests*.log | head -14
rm -rf $L/ab/change/build.log
grep -q "PASSED" $L/ab/tests.log || { echo "the change's tests did not pass: nothing more"; exit 0; }
base=$(awk '$1 == "base" {print $2}' $L/ab/trees.txt)
sweep() {  # name, python path, limit, decode_splits.py arguments
  local name=$1 path=$2 limit=$3; shift 3
  PYTHONPATH=$path timeout $limit python3 bench/decode_splits.py --samples 30 --json $L/$name.json "$@" \
    > $L/$name.log 2>&1
  echo "$name rc=$? at $((SECONDS - t0)) s"
}
sweep splits_paged16_change build-gpu/python 60 --page-size 16 --batches 4,16,64 --lengths 1024,8192,32768 \
  --splits 0,1,2,4,8
sweep splits_paged16_base $base/build/python 60 --page-size 16 --batches 4,16,64 --lengths 1024,8192,32768 \
  --splits 0,1,2,4,8
sweep splits_dense_change build-gpu/python 120 --batches 1,4,16 --lengths 1024,8192,32768,131072 \
  --splits 0,1,2,4,8,16,17,32
sweep splits_dense_base $base/build/python 60 --batches 1,4 --lengths 32768,131072 --splits 0,8,16,17,24,32
python3 bench/decode_splits_report.py $L/splits_paged16_change.json $L/splits_paged16_base.json --vs
python3 bench/decode_splits_report.py $L/splits_dense_change.json $L/splits_dense_base.json --vs
FLASHATTN_GPU_STEPS=memcheck FLASHATTN_SANITIZER_TIMEOUT=60 \
  FLASHATTN_SANITIZER_FILTER='KVCacheCuda.PageSizesAndEdgeLengthsMatchOracle:KVCacheCuda.SplitCountsAgreeWithinRounding' \
  scripts/gpu $L/memcheck | tail -2
echo "done at $((SECONDS - t0)) s"
