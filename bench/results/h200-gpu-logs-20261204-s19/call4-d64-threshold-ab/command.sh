#!/usr/bin/env bash
# Session 19 call 4 (fresh machine): A/B of D 64's short-key tile (128x128, two consumer warpgroups) up to
# 1024 mean keys per row instead of 512 (core::short_key_loop_sm90_d64; working tree) against the committed
# HEAD: D 64 full and causal, S 512-4k (full 1k and causal 2k change tile; the rest are controls).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64" AB_CHANGE_STEPS=build AB_PEERS_ARGS="--head-dims 64 --seqlens 512,1024,2048,4096" \
  timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
