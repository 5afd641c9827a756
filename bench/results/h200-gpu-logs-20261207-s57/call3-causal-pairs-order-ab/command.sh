#!/usr/bin/env bash
# Session 57, call 3 (~330 s, any GPU): A/B of 7ff4775 (odd CTAs take a causal pair's shorter tile first)
# against e1550d5 (main before it), three interleaved runs a side: the paired causal cells (D 64 / 128 / 256
# causal S 512-2k; GQA B 8 S 4k) and D 128 full S 512 as a control (its order is unchanged). The change's
# pair test gates the timing. Carry .ab (cutlass.tgz, base.tar.gz) and .commit.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_RUNS=3 \
  AB_TESTS='CudaForwardSm90.CausalProblemsOfManyHeadsTakeTheirTilesInPairs' \
  AB_PEERS_ARGS="--op fwd --masks causal --seqlens 512,1024,2048; --op fwd --grid gqa-long --seqlens 4096; --op fwd --head-dims 128 --masks full --seqlens 512" \
  device_ab "$L/ab" 480
echo "done at $((SECONDS - device_t0)) s"
