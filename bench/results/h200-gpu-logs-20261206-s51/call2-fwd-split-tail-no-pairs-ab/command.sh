#!/usr/bin/env bash
# Session 51, call 2 (any GPU with 132 SMs, ~360 s). The sm90 forward's split tail as f053227 but not in
# cluster pairs (fwd_split_tail_allowed_sm90 excludes kKvMulticast; the test's pair case dropped): call 1 ran
# f053227 and its new GPU test (PartialRoundsOfEqualTilesCutTilesBetweenCtas) did not finish within the
# tests' 150 s, while memcheck passed the same test in 106 s and the CLI ran cut tails at D 64 S 1k and D 128
# S 4k; the pair case was the only part never run before (session 50's call 6 ran the D 128 non-pair cases).
# Predicted as call 1's (session 50's call 5) for the non-pair cells: D 128 full S 1k-4k +1.5-2.5%, D 64 S
# 1k-4k +1-2.5%, D 256 +1-2.5%; D 128 S 8k / 16k (pairs) unchanged. Keep if the changed cells' geomean >=
# 1.005, no cell < 0.99, CudaForwardSm90.* pass (tests timeout 240 s).
# Prepare: git checkout b0ec1b4 -- src tests include python tools bench/peers.py; git reset -q (b0ec1b4:
# f053227 with the two edits above and main's test_kvcache_cuda.cpp); .ab/base.tar.gz from main (git archive
# HEAD -o .ab/base.tar -- . ':!bench/results', gzip); git rev-parse HEAD > .commit; carry [".ab",
# "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 390). No memcheck:
# call 1's memcheck ran the same test through the same non-pair code (b0ec1b4 changes only the pair path)
# and passed.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=240 AB_PEERS_ARGS="--op fwd --masks full" device_ab "$L/ab" 380
echo "done at $((SECONDS - device_t0)) s"
