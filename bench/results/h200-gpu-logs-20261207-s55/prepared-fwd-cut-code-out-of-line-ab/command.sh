#!/usr/bin/env bash
# Prepared in session 55 (not run; ~330 s on a fresh machine: two builds of three TUs, the tests while the
# base builds, 22 cells). The machine decides: on an H200, issues 4-6's evidence grids on main
# (../../h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh, main's src and tests restored from
# .ab/base.tar.gz over the change's); on any other GPU, this A/B.
# The change, ac6a028 (session 54's 968258a, rebased on main after 9018826 landed as f2f67b5): the cut
# tiles' write and merge out of line (__noinline__ functions on a copy of the thread's rows). A whole tile's
# path from the main loop to its store then passes ~140 instructions of copies instead of ~1,660 (D 128).
# Session 54 measured what that code costs the calls that cut nothing: D 128 0.995, D 64 0.987 (D 64's
# short-key tile no longer carries it since f2f67b5; its 192x96 tile, from 2k keys, does). Compiled here:
# 0 bytes of spill, stack 136-520 bytes, no C7515; CPU tests and the spill check pass.
# Predicted: D 128 S <= 1k and causal S 2k-4k +0.3-0.5%; D 64 causal S 2k-4k +0.3-1%; the cutting cells
# (full S 2k and 16k) within 0.2%.
# Keep it if D 128's uncut cells read a geomean >= 1.003, no cell reads below 0.995 and the tests pass.
# Prepare:
# - The working tree: main + git diff ac6a028~1 ac6a028 (git apply; restore after: git checkout HEAD -- src).
# - .ab/base.tar.gz: git archive HEAD -o .ab/base.tar -- . ':!bench/results'; gzip.
# - .ab/cutlass.tgz: tar czf .ab/cutlass.tgz -C third_party/cutlass include.
# - git rev-parse HEAD > .commit; carry [".ab", ".commit"]; run through
#   ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 400).
set -uo pipefail
source scripts/device-call-lib.sh
device_evidence_on_h200
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=200 \
  AB_TESTS='CudaForwardSm90.SweepMatchesOracle:CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas:CudaForwardSm90.CutTilesTakeTheCallersWorkspace' \
  AB_PEERS_ARGS="--op fwd --head-dims 128 --seqlens 512,1024; --op fwd --masks causal --seqlens 2048,4096; --op fwd --masks full --seqlens 2048,16384" \
  device_ab "$L/ab" 370
echo "done at $((SECONDS - device_t0)) s"
