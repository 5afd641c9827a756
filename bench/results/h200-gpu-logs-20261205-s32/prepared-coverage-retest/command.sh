#!/usr/bin/env bash
# Prepared in session 32 as its call 3, which got no machine (two starts failed, then too little device time
# was left): not yet run. The coverage kernels' checks that call 1 (call1-coverage-prebuilt) left open:
# (1) the three D 192 / Dv 128 pair tests, whose one failing case in call 1 was the harness's (a varlen
#     batch with every key sequence empty stated max_seqlen_k = 0, which the CUDA path rejects; 906c365);
# (2) racecheck of the packed test alone (call 1's racecheck spent its 60 s on the pair tests), 110 s;
# (3) the packing bound's middle ground, main's CLI (packs at <= 2/3 of the tiles) against the CLI of
#     906c365 (no packing): Sq 150 (5/8 of the tiles, packs) and Sq 96 (3/4, packs in neither: the control).
# Call 1 measured 1/4 and 1/2 faster, 7/8 (Sq 200) slower; the packed test's shortened cases (e92248b) run
# here for the first time.
# Prepare on main, from the repository root (~10 minutes on the 2-core machine):
#   rm -rf /tmp/base-cli && git worktree add --detach /tmp/base-cli 906c365 && cp -r third_party /tmp/base-cli/ &&
#   (cd /tmp/base-cli && BUILD_DIR=/tmp/base-cli/build-carry scripts/build-for-device 128 bf16) &&
#   scripts/build-for-device "64;128;192;256" "bf16;fp16" &&
#   mkdir -p build-bin/base && cp /tmp/base-cli/build-bin/flashattn /tmp/base-cli/build-bin/COMMIT build-bin/base/
# Session 33 added (4): B 1 (32 unpacked tiles, 8-16 packed: one round of the persistent CTAs either way), where
# a rule in rounds would not pack and the tile rule does. Carry ["build-bin"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 260). The racecheck runs last (RACECHECK_LIMIT, default 110 s),
# so that a shorter call still measures.
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
B=build-bin
pairs='CudaForwardSm80.HeadDimPairsMatchOracle:CudaBackwardSm80.HeadDimPairsMatchOracle:CudaForwardSm90.HeadDimPairsMatchOracle'
FLASHATTN_GPU_TIER=quick timeout 90 $B/flashattn_tests_gpu --gtest_filter="$pairs" > "$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" "$L/tests.log"
# shellcheck disable=SC2054  # the CLI takes comma-separated lists
shape=(--backend cuda --dtype bf16 --batch 8 --heads 32 --heads-kv 8 --head-dim 128 --seqlen-q 96,150
  --seqlen-k 1024,8192 --quiet)
# shellcheck disable=SC2054
one_round=(--backend cuda --dtype bf16 --batch 1 --heads 32 --heads-kv 8 --head-dim 128 --seqlen-q 16,64
  --seqlen-k 8192,32768 --quiet)
for side in change base; do
  bin=$B/flashattn; [[ $side == base ]] && bin=$B/base/flashattn
  timeout 45 $bin bench "${shape[@]}" --json "$L/bench_${side}.json" > "$L/bench_${side}.log" 2>&1
  echo "bench $side rc=$? at $((SECONDS - t0)) s"
  timeout 30 $bin bench "${one_round[@]}" --json "$L/bench1_${side}.json" > "$L/bench1_${side}.log" 2>&1
  echo "bench1 $side rc=$? at $((SECONDS - t0)) s"
done
python3 bench/ab_compare.py --a "$L/bench_change.json" --b "$L/bench_base.json" --peer none
python3 bench/ab_compare.py --a "$L/bench1_change.json" --b "$L/bench1_base.json" --peer none
FLASHATTN_GPU_TIER=quick timeout "${RACECHECK_LIMIT:-110}" compute-sanitizer --tool racecheck --error-exitcode 1 \
  $B/flashattn_tests_gpu --gtest_filter=CudaForwardSm90.GqaPackedTilesMatchOracle > "$L/racecheck.log" 2>&1
echo "racecheck rc=$? at $((SECONDS - t0)) s"; tail -3 "$L/racecheck.log"
echo "done at $((SECONDS - t0)) s"
