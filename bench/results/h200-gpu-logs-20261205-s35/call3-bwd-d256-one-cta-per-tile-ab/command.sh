#!/usr/bin/env bash
# Session 35, call 3: the D 256 backward with one CTA per tile again (the candidate: BwdTileSm90::persistent_ctas
# false at D 256) against main's persistent D 256 kernel. Call 1's H200 grid ran D 256 at 0.966-0.980x of
# session 26's, full and causal alike, and the persistent kernel (04b4a84) landed between them A/B'd at D 64 /
# 128 only. Binaries from the CPU machine: build-bin (the candidate, D 256 bf16, fwd_sm90 + bwd_sm90: test
# binary and CLI) and build-bin/base/flashattn (main at 2d4f475, whose kernels are main's).
# (1) CudaBackwardSm90.* at the quick tier on the candidate (D 256 only: the one-CTA-per-tile grid, the
# deterministic turns, edge lengths); (2) CLI A/B, D 256, bf16, B·S 16k, H 8, full and causal, S 512-16k,
# the two sides interleaved cell by cell, the order swapped in the second round, two rounds.
# Carry ["build-bin"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 200).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
B=build-bin
FLASHATTN_GPU_TIER=quick timeout 45 $B/flashattn_tests_gpu --gtest_filter='CudaBackwardSm90.*' > "$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran|Failure" "$L/tests.log"
grep -q "PASSED" "$L/tests.log" || { echo "the candidate's tests did not pass: no timing"; exit 0; }
for round in 1 2; do
  sides=(change base); ((round == 2)) && sides=(base change)
  for mask in full causal; do
    for s in 512 1024 2048 4096 8192 16384; do
      ((SECONDS - t0 > 170)) && break 3
      flags=(); [[ $mask == causal ]] && flags=(--causal)
      for side in "${sides[@]}"; do
        bin=$B/flashattn; [[ $side == base ]] && bin=$B/base/flashattn
        timeout 25 $bin bench --backend cuda --op bwd --dtype bf16 --head-dim 256 --heads 8 --batch $((16384 / s)) \
          --seqlen-q "$s" "${flags[@]}" --quiet --json "$L/r${round}_${side}_${mask}_${s}.json" > /dev/null \
          2>> "$L/bench.log" || echo "bench $side $mask $s failed"
      done
    done
  done
  echo "round $round done at $((SECONDS - t0)) s"
done
for round in 1 2; do
  for side in change base; do
    ls "$L"/r"${round}"_"${side}"_*.json > /dev/null 2>&1 || continue
    python3 -c 'import json, sys
runs = [json.load(open(p)) for p in sys.argv[2:]]
json.dump({**runs[0], "results": [r for run in runs for r in run["results"]]}, open(sys.argv[1], "w"))' \
      "$L/${side}_${round}.json" "$L"/r"${round}"_"${side}"_*.json
  done
done
a=("$L"/change_*.json); b=("$L"/base_*.json)
python3 bench/ab_compare.py --a "${a[@]}" --b "${b[@]}" --peer none
echo "done at $((SECONDS - t0)) s"
