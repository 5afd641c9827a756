#!/usr/bin/env bash
# Prepared in session 54 (not run; any GPU with 132 SMs, ~380 s). The D 64 / 256 short-key tiles built without
# the split tail's code (9018826), since no call that cuts tiles runs on them (fwd_regime_may_cut_tiles_sm90;
# D 64's short-key kernel 7,288 -> 5,624 SASS instructions, its flag loads and stores gone). Session 54's call 2
# found that the code costs the calls that cut nothing 1.3% at D 64 (0.983-0.992) and nothing at D 256.
# - Change (the working tree): 9018826. Base: main before it (a0f06a0 or later, .ab/base.tar.gz).
# - Predicted: D 64 S 512 / 1k, full and causal, +1.0-1.5%; D 256 S 512 / 1k within noise; the S 2k cells
#   (the 192x96 and 128x64/80 tiles, unchanged SASS) within noise. Three runs a side.
# Keep if the four D 64 cells of S <= 1k read a geomean >= 1.005, none below 0.99 anywhere, tests pass.
# Prepare:
# - The working tree: git checkout 9018826 -- src tests; git reset -q (restore after: git checkout HEAD -- src tests).
# - .ab/base.tar.gz: git archive HEAD -o .ab/base.tar -- . ':!bench/results'; gzip.
# - .ab/cutlass.tgz: tar czf .ab/cutlass.tgz -C third_party/cutlass include.
# - git rev-parse HEAD > .commit (the JSONs then name main; the change is 9018826).
# - carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_RUNS=3 AB_TESTS_TIMEOUT=240 \
  AB_TESTS='CudaForwardSm90.SweepMatchesOracle:CudaForwardSm90.HeadDim64TileFollowsTheKeyLoopLength:CudaForwardSm90.HeadDim256TileFollowsTheKeyLoopLength:CudaForwardSm90.RerunsAreBitwiseIdentical' \
  AB_PEERS_ARGS="--op fwd --head-dims 64,256 --seqlens 512,1024,2048" device_ab "$L/ab" 400
echo "done at $((SECONDS - device_t0)) s"
