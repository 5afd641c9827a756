#!/usr/bin/env bash
# Prepared in session 54 (not run; any GPU with 132 SMs, ~520 s: three builds, then c1's tests, ~160 s).
# What the split tail's code costs the calls that cut nothing, recovered two ways. Session 54's call 2
# measured that cost: 1.3% at D 64 (0.983-0.992), 0.5% at D 128, nothing at D 256. In SASS the code sits
# between the main loop's last HGMMA and the epilogue's stmatrix, so every tile jumps over it.
# - Change (the working tree): 9018826. The D 64 / 256 short-key tiles are built without that code, since no
#   cutting call reaches them (fwd_regime_may_cut_tiles_sm90). D 64's short-key kernel goes from 7,288 to
#   5,624 SASS instructions, with no flag loads or stores.
# - c1 (.ab/out_of_line.tar), 968258a: 9018826 plus the write and merge out of line (__noinline__ on a
#   264-byte copy of the rows at D 128). Every kernel that keeps the code then has ~140 instructions of
#   copies left in that place instead of ~1,660.
# Predicted:
# - Change: D 64 S <= 1k (full and causal) +1.0-1.5%; the rest within noise.
# - c1: the change's gain, plus D 128 S <= 1k and causal S 2k +0.3-0.5%. The cutting cells (full S 2k at
#   D 64 / 128, and S 16k) should lose at most 0.2%, to the copies.
# Keep the change if the four D 64 cells of S <= 1k read a geomean >= 1.005, no cell reads below 0.99, and the
# tests pass. Keep c1 instead if its uncut D 128 cells also read a geomean >= 1.003 and no cutting cell reads
# below 0.995.
# Prepare:
# - The working tree: git checkout 9018826 -- src tests; git reset -q (restore after: git checkout HEAD -- src tests).
# - .ab/base.tar.gz: git archive HEAD -o .ab/base.tar -- . ':!bench/results'; gzip.
# - .ab/out_of_line.tar.gz: the same from 968258a.
# - .ab/cutlass.tgz: tar czf .ab/cutlass.tgz -C third_party/cutlass include.
# - git rev-parse HEAD > .commit (the JSONs then name main; the change is 9018826, c1 968258a).
# - carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 580).
# device_ab unpacks every .ab/*.tar.gz first, so the candidate is named as .tar.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=6 AB_TESTS_TIMEOUT=240 \
  AB_TESTS='CudaForwardSm90.HeadDim64TileFollowsTheKeyLoopLength:CudaForwardSm90.HeadDim256TileFollowsTheKeyLoopLength:CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas' \
  AB_PEERS_ARGS="--op fwd --seqlens 512,1024; --op fwd --masks full --seqlens 2048,16384" \
  device_ab "$L/ab" 560 .ab/out_of_line.tar
echo "done at $((SECONDS - device_t0)) s"
