#!/usr/bin/env bash
# Session 8 call 2a (second try; the first built no torch binding and hit the ctest discovery bug fixed in 74a90e4): main (74a90e4) on the H200: every kernel built for 90a (fp16 + bf16, torch binding); the
# portable forward against FlashAttention-2, each in its own process, interleaved twice (same grid, same
# order); the default forward grid against cuDNN and FlashAttention-2; the GPU tests (quick tier, 4 at once);
# pytest. The build stays on the machine for call 2b.
set -uo pipefail
export FLASHATTN_COMMIT=74a90e4 FLASHATTN_CUDA_ARCHS=90a
L=$OUT/logs; mkdir -p $L
FLASHATTN_GPU_STEPS="build pytest" timeout 260 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
B=build-gpu
for run in 1 2; do
  for impl in flashattn fa2; do
    PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 50 python3 bench/peers.py --path portable --impls $impl \
      --json $L/portable_${impl}_$run.json > $L/portable_${impl}_$run.log 2>&1; echo "portable $impl $run rc=$?"
  done
done
python3 - $L <<'PY'
import json, sys, math
d = sys.argv[1]
def load(name):
    return {(r["D"], r["causal"], r["Sq"]): r["tflops"] for r in json.load(open(f"{d}/{name}.json"))["rows"]}
a = [load(f"portable_flashattn_{r}") for r in (1, 2)]
b = [load(f"portable_fa2_{r}") for r in (1, 2)]
ratios = []
for k in sorted(a[0]):
    ra = [x[k] / y[k] for x, y in zip(a, b)]
    ratios.append(sum(x[k] for x in a) / sum(y[k] for y in b))
    print(k, " ".join(f"{x[k]:.0f}" for x in a), "|", " ".join(f"{y[k]:.0f}" for y in b), "|", " ".join(f"{r:.3f}" for r in ra), f"| {ratios[-1]:.3f}")
print("portable/fa2 geomean", math.exp(sum(map(math.log, ratios)) / len(ratios)), "min", min(ratios))
PY
PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 70 python3 bench/peers.py --impls flashattn,cudnn,fa2 \
  --json $OUT/peers_fwd.json > $L/peers_fwd.log 2>&1; echo "peers rc=$?"
FLASHATTN_GPU_STEPS="ctest" FLASHATTN_GPU_TIER=quick FLASHATTN_CTEST_JOBS=4 FLASHATTN_CTEST_TIMEOUT=150 \
  timeout 200 scripts/gpu $L/tests > $L/tests_summary.log 2>&1; echo "tests rc=$?"; tail -5 $L/tests_summary.log
grep -E "tests passed|Failed|FAILED" $L/tests/ctest_gpu.log | tail -8; tail -2 $L/build/pytest.log
grep -E "spill" $L/build/kernels.txt | sort | uniq -c
rm -f $L/build/build.log
