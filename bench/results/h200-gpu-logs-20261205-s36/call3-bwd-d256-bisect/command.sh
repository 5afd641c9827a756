#!/usr/bin/env bash
# Session 36, call 3: where between session 26 (54ce1cd) and main did D 256's backward lose 2-4%? Call 2 (H100)
# measured main against 54ce1cd at 0.982 (full 0.960-0.982, causal 512 / 1k 0.968 / 0.979, 2k / 4k 1.008 /
# 1.019 from the sections). Every kept change on the D 256 path since, in one scripts/ab call against 54ce1cd,
# D 256 only, two interleaved runs a side: c1 = 6a88eb8 (whole query blocks once per CTA, with 39ec3aa /
# 9e4f732 before it, whose D 256 SASS is unchanged), c2 = 86e7306 (step 0's lse and D before the K / V wait),
# c3 = 04b4a84 (the persistent kernel), change = main (cdb6692's sections and later). The step where the ratio
# falls is the cause. No tests (call 2 ran the change's; the others were tested when they landed).
# Prepare on main: rm -rf .ab && mkdir .ab && git archive 54ce1cd -o .ab/base.tar -- . ':!bench/results' and
#   the same for each candidate into .ab/c_<commit>.tar; gzip them; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 430).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="256" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build AB_TREE_JOBS=3 \
  AB_PEERS_ARGS="--op bwd --head-dims 256" timeout 410 scripts/ab "$L/ab" .ab/base.tar \
  .ab/c_6a88eb8.tar .ab/c_86e7306.tar .ab/c_04b4a84.tar > "$L/ab.log" 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" "$L/ab.log"; cat "$L/ab/ab.txt"
rm -f "$L/ab/change/build.log"
echo "done at $((SECONDS - t0)) s"
