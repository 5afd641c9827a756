#!/usr/bin/env bash
# Session 19 call 6 (fresh machine, the session's last device time): A/B of the sm90 backward walking its
# query blocks from the last down (heads innermost) against the parent: backward long-context GQA at S 8k /
# 32k / 128k and the D 128 paper cells S 4k / 16k (full and causal), with the change's CudaBackwardSm90
# tests (full tier) while the base builds.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="128" AB_CHANGE_STEPS=build AB_TESTS='CudaBackwardSm90.*' \
  AB_PEERS_ARGS="--op bwd --grid gqa-long --seqlens 8192,32768,131072; --op bwd --head-dims 128 --seqlens 4096,16384" \
  timeout 285 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
