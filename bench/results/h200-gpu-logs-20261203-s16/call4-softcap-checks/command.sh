#!/usr/bin/env bash
# Session 16 call 4 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of 78790f4,
# built on the CPU machine):
#  - the softcap's tanh from exp2 and a reciprocal (78790f4), checked where softcap runs: the forward sweeps
#    (sm90 and sm80, full tier), the backward sweeps and score-mod tests (sm90 and sm80), the decode mask
#    options; compute-sanitizer memcheck, racecheck and synccheck on the paired-order test (d13b0e2's shape);
#  - meanwhile the A/B's builds: 78790f4 against d13b0e2 (the same code with tanhf), D 128 bf16, the forward at
#    S 512-2k, full and causal (no softcap in the grid: does the smaller kernel run faster?).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="128" AB_RUNS=2 AB_CHANGE_STEPS=build AB_PEERS_ARGS="--head-dims 128 --seqlens 512,1024,2048" \
  timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1 &
ab=$!
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
FLASHATTN_GPU_TIER=full timeout 150 $T --gtest_filter='CudaForwardSm90.*:CudaForwardSm80.*' > $L/tests_fwd.log 2>&1
echo "fwd tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $L/tests_fwd.log | head
FLASHATTN_GPU_TIER=quick timeout 120 $T --gtest_filter='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.NonContiguous*:CudaBackwardSm90.ShortQueries*:CudaBackwardSm80.SweepMatchesOracle:KVCacheCuda.MaskOptions*' > $L/tests_bwd_kv.log 2>&1
echo "bwd/kv tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|^\[       OK" $L/tests_bwd_kv.log | head
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 90 compute-sanitizer --tool $tool --error-exitcode 1 $T \
    --gtest_filter='CudaForwardSm90.CausalProblemsOfManyHeads*' > $L/$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; tail -n 1 $L/$tool.log
done
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
echo "done at $((SECONDS - t0)) s"
