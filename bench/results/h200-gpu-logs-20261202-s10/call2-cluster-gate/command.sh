#!/usr/bin/env bash
# Session 10 call 2: e8d1a47 (cluster combine only where all clusters are resident at once, clusters up to
# 16), every kernel for 90a with the torch binding: the split-count and workspace tests at the full tier;
# the split sweep over a wider grid (B 1-32 x L 1k-64k x 12 split counts) for refitting the split
# heuristic; ncu of the decode kernel at B 1 L 1k (8 splits) and B 1 L 32k (16 splits).
set -uo pipefail
export FLASHATTN_COMMIT=e8d1a47 FLASHATTN_CUDA_ARCHS=90a
L=$OUT/logs; mkdir -p $L
FLASHATTN_GPU_STEPS="build pytest" timeout 200 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
tail -4 $L/build_summary.log; tail -1 $L/build/pytest.log
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 70 $T --gtest_filter='KVCacheCuda.SplitCounts*:KVCacheCuda.CallerWorkspace:KVCacheCuda.Kernels*' \
  > $L/tests_kvcache.log 2>&1; echo "kvcache rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests_kvcache.log
B=build-gpu
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 220 python3 bench/decode_splits.py --json $OUT/decode_splits.json \
  --batches 1,2,4,8,16,32 --lengths 1024,4096,16384,65536 --splits 0,1,2,3,4,6,8,12,16,24,32,48 --samples 30 \
  > $L/decode_splits.log 2>&1; echo "splits rc=$?"
for cfg in "1 1024 8" "1 32768 16"; do
  set -- $cfg
  PYTHONPATH=$B/python timeout 60 ncu --clock-control none --set full --import-source yes -k regex:decode \
    --launch-skip 2 -c 1 -o $OUT/ncu_b$1_l$2_s$3 python3 bench/decode_once.py --batch $1 --length $2 --num-splits $3 \
    > $L/ncu_b$1_l$2.log 2>&1; echo "ncu $cfg rc=$?"
  ncu -i $OUT/ncu_b$1_l$2_s$3.ncu-rep --page details > $L/ncu_b$1_l$2_s$3.txt 2>&1
  grep -E "Duration|DRAM Throughput|Cluster Size|Achieved Occupancy|Registers Per" $L/ncu_b$1_l$2_s$3.txt | head -8
done
rm -f $L/build/build.log
