#!/usr/bin/env bash
# Prepared in session 53 (not run; any GPU with 132 SMs, ~520 s). The split tail's out-of-kernel cost. Session
# 53's profile found ~3 us a call outside the kernel in the calls that cut tiles: the flags' cudaMemsetAsync
# and the gap before the forward starts behind it. The pool's mapping is gone from the torch op since 8fa67d9.
# The stream's in-kernel saving at D 64 / 128 S 1k is 1.9-2.2 us.
# - Change (the working tree), 09aa102: a one-CTA clear kernel, with the forward launched as its programmatic
#   dependent. Only the flag store and the flag poll wait for it. Predicted: ~3 us less a cutting call, so the
#   nine cells from 4k +0.2-0.4%, and S 2k unchanged (nothing cut).
# - c1 (.ab/from_2k.tar), 03de293: the same with the stream from 2,048 keys at Dv <= 128. Predicted: D 64 S 2k
#   +1-2%, D 128 S 2k +0-0.5%.
# Keep the change if the cells from 4k read a geomean >= 1.002, none < 0.99, and the tests pass. Keep c1
# instead if, in addition, D 64 / 128 S 2k gain.
# Prepare:
# - The working tree: git checkout 09aa102 -- src; git reset -q (restore after).
# - .ab/base.tar.gz from main: git archive HEAD -o .ab/base.tar -- . ':!bench/results'; gzip.
# - .ab/from_2k.tar.gz from 03de293 alike.
# - .ab/cutlass.tgz: tar czf .ab/cutlass.tgz -C third_party/cutlass include.
# - git rev-parse HEAD > .commit.
# - carry [".ab", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 580).
# device_ab unpacks every .ab/*.tar.gz first, so the candidate is named as .tar.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=6 AB_TESTS_TIMEOUT=300 \
  AB_TESTS='CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas:CudaForwardSm90.CutTilesTakeTheCallersWorkspace' \
  AB_PEERS_ARGS="--op fwd --masks full --seqlens 2048,4096,8192,16384" device_ab "$L/ab" 540 .ab/from_2k.tar
echo "done at $((SECONDS - device_t0)) s"
