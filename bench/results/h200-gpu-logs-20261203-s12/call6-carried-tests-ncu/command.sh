#!/usr/bin/env bash
# Session 12 call 6 (about 250 s of device time left, so nothing is built there): binaries built on the CPU
# machine at FLASHATTN_COMMIT (D 128 and 256, bf16 and fp16, 90a; carried in build-bin/): the decode
# batch-invariance test that failed in call 5 (the combine kernel now sums in split order), the sm90 backward
# tests with fp16 at D 256 for the first time, then ncu of the sm90 backward at D 128 and 256 (B 1, H 16,
# S 16k) for the next session's work.
set -uo pipefail
export FLASHATTN_COMMIT=51f6b69
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
T=build-bin/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 40 $T \
  --gtest_filter='KVCacheCuda.ASequenceResultDoesNotDependOnItsBatchNeighbours:KVCacheCuda.SplitCountsAgreeWithinRounding' \
  > $L/tests_kvcache.log 2>&1; echo "kvcache rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests_kvcache.log | head -6
FLASHATTN_GPU_TIER=quick timeout 60 $T --gtest_filter='CudaBackwardSm90.*' > $L/tests_bwd.log 2>&1
echo "bwd rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests_bwd.log | head -6
for hd in 128 256; do
  timeout 45 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 2 -c 1 -o $OUT/bwd$hd \
    build-bin/flashattn bench --backend cuda --op bwd --batch 1 --heads 16 --seqlen-q 16384 --head-dim $hd \
    --samples 1 --warmup 1 --quiet > $L/ncu_bwd${hd}_run.log 2>&1; echo "ncu $hd rc=$? at $((SECONDS - t0)) s"
  ncu -i $OUT/bwd$hd.ncu-rep --page details > $L/ncu_bwd${hd}_details.txt 2>&1
  ncu -i $OUT/bwd$hd.ncu-rep --page source --csv --print-source sass > $L/ncu_bwd${hd}_sass.csv 2>&1
  rm -f $OUT/bwd$hd.ncu-rep
  grep -E "Duration|Issue Slots Busy" $L/ncu_bwd${hd}_details.txt | head -3
done
