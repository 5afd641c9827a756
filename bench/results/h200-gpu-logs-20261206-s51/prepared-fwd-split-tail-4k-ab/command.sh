#!/usr/bin/env bash
# Ran in session 52: its logs are ../../h200-gpu-logs-20261206-s52/call1-fwd-split-tail-4k-ab/.
# Prepared in session 51 (not run; any GPU with 132 SMs, ~560 s). The sm90 forward's split tail from 4,096 keys
# (4764397: f053227's code, cluster pairs included, with core::fwd_split_tail_sm90 on the keys and
# the GPU test cutting at 4,200 keys) against main. Call 2 timed the same stream outside pairs at every key
# length: a fixup of ~10 us (D 64 / 128) to ~20-25 us (D 256) a call, repaid from 4k. Predicted from call 2,
# each changed cell running the code it timed: D 64 S 4k / 8k / 16k +2.5 / +0.7 / -0.4%, D 128 S 4k +1.5%, D
# 256 S 4k / 8k / 16k +0.6 / +1.4 / +2.1%; D 128 S 8k / 16k (pairs, first timed here) +1-2% by the model
# less the fixup; the cells below 4k unchanged. Keep if the changed cells' geomean >= 1.005, no cell < 0.99,
# CudaForwardSm90.* pass (the tests run while the base builds, so 300 s), memcheck of the new test clean.
# Prepare: git checkout 4764397 -- src tests include python tools bench/peers.py; git reset -q (the
# working tree is the change; restore after, split_tail_sm90.cuh is a new file); .ab/base.tar.gz from main
# (git archive HEAD -o .ab/base.tar -- . ':!bench/results', gzip); git rev-parse HEAD > .commit; carry
# [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 590).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=300 AB_PEERS_ARGS="--op fwd --masks full --seqlens 2048,4096,8192,16384" device_ab "$L/ab" 450
FLASHATTN_HEAD_DIMS="64;128;256" device_memcheck "$L/memcheck" \
  'CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas' $((585 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
