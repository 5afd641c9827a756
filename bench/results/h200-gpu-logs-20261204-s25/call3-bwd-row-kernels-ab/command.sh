#!/usr/bin/env bash
# Session 25 call 3: the backward's pre- and postprocess with a lane group per row and four row groups'
# loads in flight (change commit in .ab/change_commit) A/B'd against f31c972 on the D 64 + 128 and the
# D 256 backward grids. D 64 / 128 / 256 kernels, bf16; CudaBackwardSm90.* and CudaBackwardSm80.* at the
# quick tier while the base builds (every gradient check goes through both kernels; varlen tails,
# non-contiguous dO); memcheck of the varlen and off-tile tests; then ncu's duration of both kernels at
# D 64 / 128, B·S 16k, S 512.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_TESTS='CudaBackwardSm90.*:CudaBackwardSm80.*' AB_PEERS_ARGS="--op bwd --head-dims 64,128; --op bwd --head-dims 256" \
  timeout 420 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head -20
FLASHATTN_GPU_TIER=quick timeout 40 compute-sanitizer --tool memcheck build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaBackwardSm90.Varlen*:CudaBackwardSm90.LengthsOffTileMultiples' > $L/sanitizer_memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $L/sanitizer_memcheck.log | head -4
for d in 64 128; do
  h=$((2048 / d))
  timeout 30 ncu --clock-control none --section SpeedOfLight -k regex:process --launch-skip 2 -c 2 \
    build-gpu/flashattn bench --backend cuda --op bwd --batch 32 --heads $h --seqlen-q 512 --head-dim $d \
    --samples 2 --warmup 1 --quiet > $L/ncu_rows_d$d.txt 2>&1
  echo "ncu d$d rc=$?"; grep -E "process_kernel|Duration|DRAM Throughput" $L/ncu_rows_d$d.txt | head -8
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
