#!/usr/bin/env bash
# Session 55, call 1 (~400 s). The machine decides: on an H200, issues 4-6's evidence grids on main
# (../h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh, main's src and tests restored from
# .ab/base.tar.gz over the change's); on any other GPU, an A/B of two changes to different kernels, against
# main, in one build:
# - D 64 / 256 (9018826, session 54's prepared change): the short-key tiles built without the split tail's
#   code, which no cutting call reaches. D 64's short-key kernel goes from 7,288 to 5,624 SASS
#   instructions. Predicted: D 64 S <= 1k (full and causal) +1.0-1.5%; D 256 within noise.
# - D 128 (563ab9d): the short-key tile stages O in the stages of its last K and V tiles (o_in_rings, as
#   D 256's tiles do), so a Q buffer goes back after its tile's last Q·Kᵀ instead of after the next tile's
#   first softmax, and the next Q loads about a step earlier. Session 44's profile of D 128 S 512 had the
#   consumers waiting for their tile's Q in 6.8% (causal) / 2.3% (full) of the stall samples. The paired
#   tiles (GQA from 8k keys) keep O in the Q buffer. Predicted: causal S 512 / 1k +2-4%, full S 512 / 1k
#   +0.5-1.5%, S 2k-4k within +-0.5%.
# D 128's kernels are unchanged by 9018826 and D 64 / 256's by 563ab9d, so each head dim reads one change.
# Keep 9018826 if the four D 64 cells of S <= 1k read a geomean >= 1.005 and no D 64 / 256 cell reads below
# 0.99; keep 563ab9d if D 128's cells read a geomean >= 1.005 with no cell below 0.99; either only if
# CudaForwardSm90.* passes.
# Prepare: the working tree = main + git diff HEAD 9018826 -- src tests + git diff 563ab9d~1 563ab9d;
# .ab/base.tar.gz (main), .ab/cutlass.tgz; git rev-parse HEAD > .commit; carry [".ab", ".commit"]; run
# through ../h200-gpu-logs-20261204-s28/wrap.sh (limit 430).
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $gpu == *H200* ]]; then
  tar xzf .ab/base.tar.gz src tests
  exec bash bench/results/h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh
fi
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=200 \
  AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--op fwd --seqlens 512,1024; --op fwd --head-dims 128 --masks causal --seqlens 2048" \
  device_ab "$L/ab" 400
echo "done at $((SECONDS - device_t0)) s"
