#!/usr/bin/env bash
# Session 55, call 2 (run inline right after call 1, on the same warm machine and tree; 168 s). Call 1's
# test gate stopped the timing: CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas hung (exit
# 124 at the 200 s limit), a test that runs neither of 9018826's kernels but does cut D 128's short-key tile,
# which 563ab9d changed. With 169 s of device time left after this call, the same A/B without the tests, to
# read both changes' timing; the builds of call 1 were reused (ninja no-op).
source scripts/device-call-lib.sh
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='' \
  AB_PEERS_ARGS="--op fwd --seqlens 512,1024; --op fwd --head-dims 128 --masks causal --seqlens 2048" \
  device_ab "$L/ab2" 280
cd "$OUT" && tar czf logs.tgz logs && rm -rf logs
