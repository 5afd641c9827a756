#!/usr/bin/env bash
# Session 21 call 3 (fresh machine): A/B of the decode split combine in rolled loops + FastDivmods (change commit in
# .ab/change_commit) against 96305a5 on the decode grid (Hq 32, Hkv 8, D 128, bf16; flashattn dense and
# paged 16, two interleaved runs a side, cuDNN after), D 64 / 128 / 256 kernels built, with the change's
# KVCacheCuda tests (quick tier) while the base builds; then compute-sanitizer racecheck and memcheck of the
# change on three decode tests (page sizes and edge lengths; split counts; batch neighbours); B 1 L 1k timed
# (decode_once) and profiled again (ncu, per-SASS samples every 32 cycles).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build AB_TESTS='KVCacheCuda.*' FLASHATTN_GPU_TIER=quick \
  AB_PEERS_ARGS="--op decode" timeout 420 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
for tool in racecheck memcheck; do
  FLASHATTN_GPU_TIER=quick timeout 70 compute-sanitizer --tool $tool build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='KVCacheCuda.PageSizesAndEdgeLengthsMatchOracle:KVCacheCuda.SplitCountsAgreeWithinRounding:KVCacheCuda.ASequenceResultDoesNotDependOnItsBatchNeighbours' \
    > $L/sanitizer_$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|OK \]" $L/sanitizer_$tool.log | head -4
done
export PYTHONPATH=build-gpu/python
timeout 40 python3 bench/decode_once.py --time 200 > $L/decode_time.log 2>&1; cat $L/decode_time.log
timeout 60 ncu --clock-control none --set full --warp-sampling-interval 0 --import-source no -k regex:decode \
  --launch-skip 2 -c 1 -o $L/ncu_flashattn python3 bench/decode_once.py --runs 4 > $L/ncu_flashattn.log 2>&1
echo "ncu rc=$? at $((SECONDS - t0)) s"
ncu -i $L/ncu_flashattn.ncu-rep --page details > $L/ncu_flashattn_details.txt 2>&1
ncu -i $L/ncu_flashattn.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_flashattn_sass.csv.gz
rm -f $L/*.ncu-rep
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
