#!/usr/bin/env bash
# Session 57, call 4 (~360 s, any GPU): A/B of the D 128 short-key tile as two CTAs an SM of one consumer
# warpgroup each (64x64; the working tree, main + the prototype commit) against main (87adae4), two
# interleaved runs a side: D 128 full and causal S 512-4k, causal 16k, GQA B 8 S 4k. The change's sm90
# forward tests run first, not as a gate (the D 128 short-key pair tests expect a tile this prototype drops).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90" AB_RUNS=2 AB_TESTS_GATE=0 AB_TESTS_TIMEOUT=150 \
  AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--op fwd --head-dims 128 --seqlens 512,1024,2048,4096; --op fwd --head-dims 128 --masks causal --seqlens 16384; --op fwd --grid gqa-long --seqlens 4096" \
  device_ab "$L/ab" 500
grep -hE "num_ctas|kernel" "$L"/ab/change_g0_1.log 2>/dev/null | head -3
echo "done at $((SECONDS - device_t0)) s"
