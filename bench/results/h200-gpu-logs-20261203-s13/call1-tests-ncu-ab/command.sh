#!/usr/bin/env bash
# Session 13 call 1 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" at 2c4cf94,
# built on the CPU machine): the decode and sm90 backward tests at the quick tier (first GPU run of e5bea7d's
# combine fix and of fp16 D 256 backward), scripts/ab of 2c4cf94 (causal CTAs longest first) against
# 90b94d4 on the causal backward cells, then ncu of the backward at D 128 and 256 (S 16k, full).
set -uo pipefail
export FLASHATTN_COMMIT=2c4cf94
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
T=build-bin/flashattn_tests_gpu; cat build-bin/COMMIT
FLASHATTN_GPU_TIER=quick timeout 170 $T --gtest_filter='KVCacheCuda.*:CudaBackwardSm90.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|tests from .* total" $L/tests.log | head -20
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 AB_PEERS_ARGS="--op bwd --head-dims 128,64,256 --masks causal" \
  timeout $((480 - (SECONDS - t0))) scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
tail -1 $L/ab/change/pytest.log
# The CLI needs the machine's fmt 9 and OpenBLAS; if it cannot load them, scripts/ab's build-gpu has one.
C=build-bin/flashattn; ldd $C | grep -q "not found" && { ldd $C | grep "not found"; C=build-gpu/flashattn; }
for d in 128 256; do
  timeout 60 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $OUT/bwd$d \
    $C bench --backend cuda --op bwd --batch 1 --heads $((2048 / d)) --seqlen-q 16384 \
    --head-dim $d --samples 2 --warmup 1 --quiet > $L/ncu$d.log 2>&1; echo "ncu $d rc=$? at $((SECONDS - t0)) s"
  ncu -i $OUT/bwd$d.ncu-rep --page details > $L/ncu${d}_details.txt 2>&1
  ncu -i $OUT/bwd$d.ncu-rep --page source --csv --print-source sass > $L/ncu${d}_sass.csv 2>&1
done
