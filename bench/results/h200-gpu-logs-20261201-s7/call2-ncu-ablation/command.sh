#!/usr/bin/env bash
# Session 7 call 2: where the sm90 forward's fixed cost per tile goes at S = 512 (ncu, D128 bf16, full and
# causal) and what the early Q release is worth (ablation build late_q_release against the shipped kernel,
# D128, same machine session); CudaOffsets64Bit run directly (did it run or skip?).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
ABLATION_HEAD_DIM=128 timeout 300 scripts/ablation $L/ablation none late_q_release > $L/ablation.log 2>&1
echo "ablation rc=$?"; cat $L/ablation.log; rm -f $L/ablation/build_*.log
# CLI + tests, D128 bf16 only, for ncu.
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS=128 FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS=build \
  timeout 200 scripts/gpu $L/cli > $L/cli_build.log 2>&1; echo "cli build rc=$?"; rm -f $L/cli/build.log
B=build-gpu
timeout 60 $B/tests/flashattn_tests_gpu --gtest_filter='CudaOffsets64Bit.*' > $L/offsets64.log 2>&1; echo "offsets rc=$?"
grep -E "SKIPPED|OK|FAILED|PASSED" $L/offsets64.log | head
for m in full causal; do
  c=""; [[ $m == causal ]] && c="--causal"
  timeout 70 ncu --clock-control none --set full --import-source no -k regex:fwd_sm90 --launch-skip 3 -c 1 -o $OUT/ncu_512_$m \
    $B/flashattn bench --backend cuda --head-dim 128 --batch 32 --heads 16 --seqlen-q 512 $c --samples 3 --warmup 1 --quiet \
    > $L/ncu_run_512_$m.log 2>&1; echo "ncu $m rc=$?"
  ncu -i $OUT/ncu_512_$m.ncu-rep --page details > $L/ncu_details_512_$m.txt 2>&1
  ncu -i $OUT/ncu_512_$m.ncu-rep --page source --csv --print-source sass > $L/ncu_sass_512_$m.csv 2>&1
  rm -f $OUT/ncu_512_$m.ncu-rep
done
grep -E "Duration|Tensor|Issue Slots Busy|SM Active" $L/ncu_details_512_*.txt | head -20
cd $OUT && tar czf logs.tgz logs && rm -rf logs
