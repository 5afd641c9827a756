#!/usr/bin/env bash
# Prepared in session 31 (no machine was lent): not yet run. The fallback of prepared-coverage-prebuilt
# (should binaries built on the CPU machine not run there): issue 4's two coverage candidates in one call,
# instead of s30's prepared-head-dim-pair-tests (one build, one machine start; racecheck / synccheck go to
# the next call on the same, still warm, machine):
#   4b9d252 D 192 / Dv 128 kernels (sm90 forward, sm80 forward and backward);
#   5ae7667 GQA packing on the sm90 forward (D 64 / 128 / 256).
# (1) scripts/ab: change = main + both (D 64 / 128 / 192 / 256, bf16), base = main (D 128 only); the change's
#     tests gate the timing (quick tier): GqaPackedTilesMatchOracle, the three HeadDimPairsMatchOracle, the
#     sm90 tile and paired-tiles tests; then packed against unpacked on the gqa-short grid, interleaved, with
#     cuDNN after (predicted Sq 1 / 16 2-4x, Sq 64 ~1.8x, Sq 200 1.05-1.1x);
# (2) the Python test of the pair; (3) the pair against cuDNN and FA2 on the paper grid, forward and backward;
# (4) memcheck on the packed and pair tests.
# Prepare on main, from the repository root:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' && gzip .ab/base.tar &&
#   git cherry-pick 4b9d252 5ae7667 && git rev-parse HEAD > .ab/change_commit
# Carry [".ab", "third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 590;
# estimated ~540 s: builds ~220, tests ~120, timing ~60, pytest ~10, peers ~90, memcheck <= 60).
# Next call, at once (build-gpu kept): FLASHATTN_GPU_STEPS=racecheck, then synccheck, with the same filter.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
packed='CudaForwardSm90.GqaPackedTilesMatchOracle'
pairs='CudaForwardSm80.HeadDimPairsMatchOracle:CudaBackwardSm80.HeadDimPairsMatchOracle:CudaForwardSm90.HeadDimPairsMatchOracle'
FLASHATTN_HEAD_DIMS="64;128;192;256" AB_TREE_HEAD_DIMS=128 AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick \
  AB_IMPLS=flashattn AB_TESTS="$packed:$pairs:CudaForwardSm90.HeadDim*:CudaForwardSm90.Causal*" \
  AB_TESTS_TIMEOUT=200 AB_TESTS_GATE=1 AB_PEERS_ARGS="--grid gqa-short" \
  timeout 380 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" $L/ab/tests*.log | head -16
PYTHONPATH=build-gpu/python timeout 60 python3 -m pytest -q -rA tests/python -k value_head_dim > $L/pytest.log 2>&1
echo "pytest rc=$?"; tail -3 $L/pytest.log
for op in fwd bwd; do
  PYTHONPATH=build-gpu/python timeout 60 python3 bench/peers.py --op $op --head-dims 192:128 \
    --impls flashattn,cudnn,fa2 --json $L/peers_${op}_192_128.json > $L/peers_${op}_192_128.log 2>&1
  echo "peers $op rc=$? at $((SECONDS - t0)) s"; tail -14 $L/peers_${op}_192_128.log
done
FLASHATTN_GPU_STEPS=memcheck FLASHATTN_SANITIZER_TIMEOUT=60 FLASHATTN_SANITIZER_FILTER="$packed:$pairs" \
  scripts/gpu $L/memcheck | tail -1
echo "done at $((SECONDS - t0)) s"
