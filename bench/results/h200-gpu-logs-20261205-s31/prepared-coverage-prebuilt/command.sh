#!/usr/bin/env bash
# Prepared in session 31 (no machine was lent); run in session 32 as its call 1 (h200-gpu-logs-20261205-s32). Both of issue 4's coverage candidates, checked
# with no device build: 4b9d252 (D 192 / Dv 128 kernels) and 5ae7667 (GQA packing, sm90 forward D 64 / 128
# / 256), their GPU test binary built on the CPU machine with both, bf16 and fp16, and main's CLI and the
# candidates' CLI (bf16) for an interleaved A/B of packed against unpacked tiles on the gqa-short shapes.
# (1) at the quick tier: CudaForwardSm90.* (the packed test, the sweep whose small-Sq GQA cases now pack,
#     the pair's test, the tile tests) and the portable forward's and backward's HeadDimPairsMatchOracle;
# (2) memcheck, racecheck, synccheck on the packed test and the three pair tests;
# (3) the two CLIs' bench, interleaved (B 8, Hq 32 / Hkv 8, D 128, no mask, Sq 1 / 16 / 64 / 200 x Sk 1k / 8k).
# The pair's and the packing's numbers against cuDNN need the torch binding: bench/peers.py --head-dims
# 192:128 (fwd, bwd) and --grid gqa-short, in the next grid call.
# Prepare on main, from the repository root (about 10 minutes on the 2-core machine: 2 min 12 s and 7 min 36 s
# in session 31, bench/results/build-for-device-20261205-s31-coverage.txt; binaries 2.3 + 9.9 + 10.1 MB):
#   rm -rf /tmp/base-cli && git worktree add --detach /tmp/base-cli HEAD && cp -r third_party /tmp/base-cli/ &&
#   (cd /tmp/base-cli && BUILD_DIR=/tmp/base-cli/build-carry scripts/build-for-device 128 bf16) &&
#   git cherry-pick 4b9d252 5ae7667 && scripts/build-for-device "64;128;192;256" "bf16;fp16" &&
#   mkdir -p build-bin/base && cp /tmp/base-cli/build-bin/flashattn /tmp/base-cli/build-bin/COMMIT build-bin/base/
# Carry ["build-bin"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 580; estimated ~470 s:
# tests ~150, sanitizers 3 x <= 60, bench 4 x ~30).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
B=build-bin
echo "candidates $(cat $B/COMMIT), base $(cat $B/base/COMMIT)"
packed='CudaForwardSm90.GqaPackedTilesMatchOracle'
pairs='CudaForwardSm80.HeadDimPairsMatchOracle:CudaBackwardSm80.HeadDimPairsMatchOracle:CudaForwardSm90.HeadDimPairsMatchOracle'
FLASHATTN_GPU_TIER=quick timeout 240 $B/flashattn_tests_gpu --gtest_filter="CudaForwardSm90.*:$pairs" \
  > "$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" "$L/tests.log"
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 \
    $B/flashattn_tests_gpu --gtest_filter="$packed:$pairs" > "$L/$tool.log" 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; tail -2 "$L/$tool.log"
done
shape=(--backend cuda --dtype bf16 --batch 8 --heads 32 --heads-kv 8 --head-dim 128 --seqlen-q 1,16,64,200
  --seqlen-k 1024,8192 --quiet)
for run in 1 2; do  # interleaved, the second pair in reverse order
  sides=(base change); ((run == 2)) && sides=(change base)
  for side in "${sides[@]}"; do
    bin=$B/flashattn; [[ $side == base ]] && bin=$B/base/flashattn
    timeout 90 $bin bench "${shape[@]}" --json "$L/bench_${side}_$run.json" > "$L/bench_${side}_$run.log" 2>&1
    echo "bench $side $run rc=$? at $((SECONDS - t0)) s"
  done
done
# A = the candidates' CLI, B = main's: TFLOP/s per run and the ratio of the means (packed_heads: the JSONs).
python3 bench/ab_compare.py --a "$L"/bench_change_{1,2}.json --b "$L"/bench_base_{1,2}.json --peer none
echo "done at $((SECONDS - t0)) s"
