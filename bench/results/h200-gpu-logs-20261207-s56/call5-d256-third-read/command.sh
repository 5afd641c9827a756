#!/usr/bin/env bash
# Session 56, call 5: run inline on the same warm machine (builds reused): a third read of D 256, three
# interleaved runs a side, the full-mask cells that cut tiles (4k-16k) and the long causal ones.
set -uo pipefail; source scripts/device-call-lib.sh; FLASHATTN_HEAD_DIMS="128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=16 AB_TESTS='' AB_RUNS=3 AB_PEERS_ARGS="--op fwd --head-dims 256 --masks full --seqlens 2048,4096,8192,16384; --op fwd --head-dims 256 --masks causal --seqlens 8192,16384" device_ab "$L/ab3" 300; cd $OUT && tar czf logs.tgz logs && rm -rf logs
