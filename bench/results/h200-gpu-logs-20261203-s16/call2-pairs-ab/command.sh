#!/usr/bin/env bash
# Session 16 call 2 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of 273be4e,
# built on the CPU machine): the paired tile order of the sm90 forward (c582474 + 273be4e) against 1380182.
#  - While the A/B's two builds run: the forward tests (quick tier, the new paired-order test among them) and
#    memcheck on the paired-order test.
#  - The A/B: the causal forward grid at D 64 / 128 / 256 (S 512 ... 16k; S <= 2k take pairs), two interleaved
#    runs a side, cuDNN after; then long-context GQA at (B 8, S 4k) (pairs) and (1, 8k) (global order).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 AB_CHANGE_STEPS=build AB_PEERS_ARGS="--masks causal" \
  timeout 420 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1 &
ab=$!
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
FLASHATTN_GPU_TIER=quick timeout 150 $T --gtest_filter='CudaForwardSm90.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|^\[       OK" $L/tests.log | head -20
FLASHATTN_GPU_TIER=quick timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaForwardSm90.CausalProblemsOfManyHeads*' > $L/memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -n 2 $L/memcheck.log
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
B=$(ls -d /tmp/tmp.*/base/build/python | head -1); G="--grid gqa-long --seqlens 4096,8192 --impls flashattn"
for r in 1 2; do
  ((SECONDS - t0 < 520)) || break
  PYTHONPATH=build-gpu/python timeout 40 python3 bench/peers.py $G --json $L/gqa_change_$r.json > $L/gqa_change_$r.log 2>&1
  PYTHONPATH=$B FLASHATTN_COMMIT=1380182 timeout 40 python3 bench/peers.py $G --json $L/gqa_base_$r.json > $L/gqa_base_$r.log 2>&1
done
python3 bench/ab_compare.py --a $L/gqa_change_*.json --b $L/gqa_base_*.json | tee $L/gqa_ab.txt
# Decode B 1 L 1k, ours and cuDNN: back to back (code and cache warm in L2), after an L2 flush, graph replay,
# and peers.py's timing — how much of the call is the cold L2 (instructions and data)?
for impl in flashattn cudnn; do
  ((SECONDS - t0 < 560)) || break
  PYTHONPATH=build-gpu/python timeout 30 python3 bench/decode_once.py --impl $impl --batch 1 --length 1024 --time 50 \
    > $L/decode_once_$impl.log 2>&1; echo "== decode $impl"; cat $L/decode_once_$impl.log | tail -5
done
echo "done at $((SECONDS - t0)) s"
