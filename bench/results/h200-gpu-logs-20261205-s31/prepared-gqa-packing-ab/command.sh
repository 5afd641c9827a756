#!/usr/bin/env bash
# Prepared in session 31 (no machine was lent): not yet run.
# GQA packing on the sm90 forward (5ae7667, reverted on main until this has passed): the query heads of a
# kv head share a tile's rows where core::pack_gqa_sm90 says it saves a tenth of the tiles (D 64 / 128 / 256).
# One scripts/ab call: change = the working tree (main + 5ae7667), base = main without it, so that the
# packed tiles are timed against the unpacked ones on the same GPU, interleaved, on the gqa-short grid
# (B 8, Hq 32 / Hkv 8, D 128, no mask, Sq 1 / 16 / 64 / 200 x Sk 1k / 8k; cuDNN timed after them):
#   predicted: Sq 1 / 16 (1 packed tile for 4) 2-4x faster, Sq 64 ~1.8x, Sq 200 (7 for 8) 1.05-1.1x,
#   less where the unpacked tiles' K/V re-reads came from L2 anyway and at Sk 1k where fixed costs dominate.
# Its tests gate the timing (quick tier): GqaPackedTilesMatchOracle (decode-like Sq 1, causal Sq < Sk,
# window + softcap, group 3, MQA, partial token groups, 7 packed tiles under a causal mask on strided views,
# varlen with empty sequences and seqused_k, lse per (head, token), RunInfo.packed_heads, ALiBi and
# unprofitable shapes unpacked, reruns bitwise), the sweep (its small-Sq GQA cases now pack), the tile
# tests whose cases changed, and the paired-tiles test.
# Then memcheck / racecheck / synccheck on GqaPackedTilesMatchOracle (the change's build).
# Prepare on main, from the repository root:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' && gzip .ab/base.tar &&
#   git cherry-pick 5ae7667 && git rev-parse HEAD > .ab/change_commit
# Carry [".ab", "third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 590;
# estimated ~500 s: builds ~200 (the base tree D 128 only: AB_TREE_HEAD_DIMS), tests ~100, timing ~60,
# sanitizers 3 x <= 50).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
packed='CudaForwardSm90.GqaPackedTilesMatchOracle'
FLASHATTN_HEAD_DIMS="64;128;256" AB_TREE_HEAD_DIMS=128 AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn \
  AB_TESTS="$packed:CudaForwardSm90.SweepMatchesOracle:CudaForwardSm90.HeadDim*:CudaForwardSm90.Causal*:CudaForwardSm90.RunInfo*" \
  AB_TESTS_TIMEOUT=150 AB_TESTS_GATE=1 AB_PEERS_ARGS="--grid gqa-short" \
  timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran" $L/ab/tests*.log | head -16
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_TIMEOUT=50 FLASHATTN_SANITIZER_FILTER="$packed" \
    scripts/gpu $L/$tool | tail -1
done
echo "done at $((SECONDS - t0)) s"
