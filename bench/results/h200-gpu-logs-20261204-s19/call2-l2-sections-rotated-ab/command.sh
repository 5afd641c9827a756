#!/usr/bin/env bash
# Session 19 call 2 (fresh machine): A/B of the sectioned longest-first order with the CTAs' roles rotated
# by section (HEAD) against aca5b2d (before sections): the long-context GQA grid and the causal paper cells
# S 2k-16k at D 64/128/256, with the change's CudaForwardSm90 tests (full tier) and the scheduler's CPU test.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--grid gqa-long; --masks causal --seqlens 2048,4096,8192,16384" \
  timeout 500 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
build-gpu/tests/flashattn_tests_cpu --gtest_filter='TileScheduler*' 2>&1 | tail -1
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
