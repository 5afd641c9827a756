#!/usr/bin/env bash
# Session 9 call 2: main (FLASHATTN_COMMIT) on the H200, every kernel for 90a with the torch binding: pytest;
# the portable forward against FlashAttention-2 over the default grid, each in its own process, interleaved
# three times (same grid, same order); then the package as a user installs it (`pip install
# --no-build-isolation .`, scripts/gpu step "pip") and pytest against the installed package.
set -uo pipefail
export FLASHATTN_COMMIT=8825388 FLASHATTN_CUDA_ARCHS=90a
L=$OUT/logs; mkdir -p $L
FLASHATTN_GPU_STEPS="build pytest" timeout 200 scripts/gpu $L/build > $L/build_summary.log 2>&1; echo "build rc=$?"
tail -4 $L/build_summary.log
B=build-gpu
for run in 1 2 3; do
  for impl in flashattn fa2; do
    PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 60 python3 bench/peers.py --path portable --impls $impl \
      --json $OUT/portable_${impl}_$run.json > $L/portable_${impl}_$run.log 2>&1; echo "portable $impl $run rc=$?"
  done
done
python3 bench/ab_compare.py --a $OUT/portable_flashattn_{1,2,3}.json --b $OUT/portable_fa2_{1,2,3}.json --b-impl fa2 | tee $L/portable_vs_fa2.txt
FLASHATTN_GPU_STEPS="pip" timeout 240 scripts/gpu $L/pip > $L/pip_summary.log 2>&1; echo "pip rc=$?"
tail -4 $L/pip_summary.log; tail -2 $L/pip/pip_pytest.log
rm -f $L/build/build.log
