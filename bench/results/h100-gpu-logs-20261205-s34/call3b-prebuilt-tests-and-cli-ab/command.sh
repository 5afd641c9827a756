#!/usr/bin/env bash
# Session 34, call 3b: call 3 (scripts/ab, ~350 s) no longer fit the device time left after failed starts, so
# the binaries come built from the CPU machine (scripts/build-for-device "64;128;256" bf16: test binary and CLI
# at main, base CLI at 613c2be in build-bin/base). (1) the GPU tests of the changed choices at the quick tier:
# the packed test's new batches and one-round case (b7e6589), the backward sweep and edge cases in the gated
# section order (cdb6692); (2) the CLI A/B of the causal backward cells whose order the gate changes (D 64 /
# 128 S 2k-16k, D 256 S 1k-8k), two controls whose order it keeps (D 64 / 256 S 512) and GQA-long B 8 S 4k,
# B·S 16k, hidden 2048, bf16, the change and the base interleaved cell by cell, one run each; (3) memcheck
# of the packed test and the off-tile backward lengths with the time left.
# Carry ["build-bin"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 190).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
B=build-bin
tests='CudaForwardSm90.GqaPackedTilesMatchOracle:CudaBackwardSm90.SweepMatchesOracle'
tests+=':CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.LengthsOffTileMultiples'
FLASHATTN_GPU_TIER=quick timeout 100 $B/flashattn_tests_gpu --gtest_filter="$tests" > "$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" "$L/tests.log"
cells=(64:512 64:2048 64:4096 64:8192 64:16384 128:2048 128:4096 128:8192 128:16384 256:512 256:1024 256:2048
  256:4096 256:8192 gqa:4096)
for cell in "${cells[@]}"; do
  d=${cell%%:*} s=${cell#*:}
  if [[ $d == gqa ]]; then shape=(--head-dim 128 --heads 32 --heads-kv 8 --batch 8)
  else shape=(--head-dim "$d" --heads $((2048 / d)) --batch $((16384 / s))); fi
  for side in change base; do
    bin=$B/flashattn; [[ $side == base ]] && bin=$B/base/flashattn
    timeout 25 $bin bench --backend cuda --op bwd --dtype bf16 "${shape[@]}" --seqlen-q "$s" --causal --quiet \
      --json "$L/bwd_${side}_${d}_${s}.json" > /dev/null 2>> "$L/bench.log" || echo "bench $side $cell failed"
  done
done
echo "bench done at $((SECONDS - t0)) s"
for side in change base; do
  python3 -c 'import json, sys
runs = [json.load(open(p)) for p in sys.argv[2:]]
json.dump({**runs[0], "results": [r for run in runs for r in run["results"]]}, open(sys.argv[1], "w"))' \
    "$L/bwd_$side.json" "$L"/bwd_"${side}"_*_*.json
done
python3 bench/ab_compare.py --a "$L/bwd_change.json" --b "$L/bwd_base.json" --peer none
left=$((180 - (SECONDS - t0)))
if ((left > 20)); then
  FLASHATTN_GPU_TIER=quick timeout "$left" compute-sanitizer --tool memcheck --error-exitcode 1 \
    $B/flashattn_tests_gpu --gtest_filter='CudaForwardSm90.GqaPackedTilesMatchOracle:CudaBackwardSm90.LengthsOffTileMultiples' \
    > "$L/memcheck.log" 2>&1
  echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -3 "$L/memcheck.log"
fi
echo "done at $((SECONDS - t0)) s"
