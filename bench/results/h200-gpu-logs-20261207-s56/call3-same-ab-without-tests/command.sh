#!/usr/bin/env bash
# Session 56, call 3: run inline on call 2's warm machine (its three builds reused): the same A/B without
# the tests (call 2's test gate stopped the timing; call 4 shows the test was slow, not hung).
set -uo pipefail; source scripts/device-call-lib.sh; FLASHATTN_HEAD_DIMS="128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=16 AB_TESTS='' AB_PEERS_ARGS="--op fwd --head-dims 128,256 --seqlens 512,1024,2048,4096; --op fwd --head-dims 128 --masks causal --seqlens 16384" device_ab "$L/ab2" 400 .ab/c1.tar; cd $OUT && tar czf logs.tgz logs && rm -rf logs
