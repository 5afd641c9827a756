#!/usr/bin/env bash
# Session 54, call 4 (~400 s, on the machine calls 1-3 left warm). The split tail from 2,048 keys at
# Dv <= 128 without the PDL clear: 03de293's change over 09aa102 applied to main (.ab/from2k_nopdl_src.tar, the
# working tree's heuristics and tests), against main (.ab/base.tar), full masks S 2k-16k and causal S 2k-4k.
# Call 1 measured c1 (the gate and the PDL clear together): S 2k D 64 / 128 +1.9 / +3.1%, D 64 16k 0.985 as
# with the PDL clear alone; this separates the gate from the clear. Tests ran in call 1 (same gate code).
set -uo pipefail
tar xf .ab/from2k_nopdl_src.tar
source scripts/device-call-lib.sh
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='' \
  AB_PEERS_ARGS="--op fwd --masks full --seqlens 2048,4096,8192,16384; --op fwd --masks causal --seqlens 2048,4096" \
  device_ab "$L/ab" 440
echo "done at $((SECONDS - device_t0)) s"
