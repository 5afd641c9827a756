#!/usr/bin/env bash
# Session 57, call 5 (~380 s, any GPU): A/B of causal blocks walking their key tiles up (the working tree,
# main + that commit) against main (940a218), two interleaved runs a side: D 64 / 128 / 256 causal S 512-4k,
# D 128 causal 16k, GQA B 8 S 4k and B 1 S 16k, and D 128 full S 512 / 2k as controls (their walk is
# unchanged). The change's sm90 forward tests (quick tier) gate the timing.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_RUNS=2 AB_TESTS_TIMEOUT=200 \
  AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--op fwd --masks causal --seqlens 512,1024,2048,4096; --op fwd --head-dims 128 --masks causal --seqlens 16384; --op fwd --grid gqa-long --seqlens 4096,16384; --op fwd --head-dims 128 --masks full --seqlens 512,2048" \
  device_ab "$L/ab" 440
echo "done at $((SECONDS - device_t0)) s"
