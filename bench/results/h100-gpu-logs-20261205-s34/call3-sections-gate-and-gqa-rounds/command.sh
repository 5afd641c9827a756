#!/usr/bin/env bash
# Session 34, call 3 (H100): main with the gated backward sections (cdb6692) and the GQA packing round rule
# (b7e6589) against 613c2be (the D 64 deferred dQ, before both): the GPU tests of both sm90 kernels at the
# quick tier (the packed test's new batches and its one-round case, the backward sweep in the new order),
# the causal backward grid and the GQA-long backward cells at S 4k / 8k (the gate changes causal cells
# only), two interleaved runs a side, cuDNN in a run of its own; then memcheck with the time left.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive 613c2be -o .ab/base.tar -- . ':!bench/results' &&
#   gzip .ab/base.tar && git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (440).
set -uo pipefail
FLASHATTN_COMMIT=$(cat .commit)
export FLASHATTN_COMMIT
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_IMPLS=flashattn AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.LengthsOffTileMultiples:CudaForwardSm90.SweepMatchesOracle:CudaForwardSm90.GqaPackedTilesMatchOracle' AB_TESTS_TIMEOUT=150 AB_TESTS_GATE=1 \
  AB_PEERS_ARGS="--op bwd --masks causal --head-dims 64,128,256; --op bwd --grid gqa-long --seqlens 4096,8192" \
  timeout 380 scripts/ab "$L/ab" .ab/base.tar > "$L/ab.log" 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" "$L/ab.log"; cat "$L/ab/ab.txt"
grep -hE "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" "$L/ab/tests.log" | head -40
rm -f "$L/ab/build_base.log"
left=$((430 - (SECONDS - t0)))
if ((left > 20)); then
  FLASHATTN_GPU_TIER=quick timeout "$left" compute-sanitizer --tool memcheck --error-exitcode 1 \
    build-gpu/tests/flashattn_tests_gpu \
    --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaForwardSm90.GqaPackedTilesMatchOracle' \
    > "$L/memcheck.log" 2>&1
  echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -3 "$L/memcheck.log"
fi
echo "done at $((SECONDS - t0)) s"
