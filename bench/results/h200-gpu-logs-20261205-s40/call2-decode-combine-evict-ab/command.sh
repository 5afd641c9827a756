#!/usr/bin/env bash
# Session 40: session 39's prepared-decode-combine-evict-ab (its header says what and why) cut to 420 s, the
# device time this session's failed machine starts left: the A/B in 330 s, the split sweeps only while time is
# left, memcheck last.
# Session 39's text (any GPU with 132 SMs, an H100 is fine for the ratios, an H200 for issue
# 6's numbers): the two decode candidates against one base in one call (scripts/ab with a candidate tarball):
#  - the change (working tree) = main + 5bf28f2: the split combine inside the decode kernel, by each
#    work item's last split to arrive (an acq_rel counter per (batch, kv head, row block), cleared by the
#    step before the decode kernel, which sm90 launches as that step's programmatic dependent), instead of a
#    combine kernel after the grid. Why: at B 1 L 32k (H100, session 38) our decode kernel took 51.1 us under
#    ncu against cuDNN's single kernel 50.2, but the call 55.2 against 51.5 back to back: ~3-4 us are the
#    combine step (the grid's end, the dependent's launch, three rounds of partial loads). Predicted: -1.5 to
#    -3 us in every cell that splits without a cluster (B 1 from L 32k, B 4 from 8k, dense and paged on the
#    H200's split choices; B 1 L 8k too on an H100), about -3 to -5% there, the rest unchanged (the cluster
#    and one-split paths run the same code as before; the main loop's SASS is unchanged).
#  - candidate c1 = main + 3bcc614: the K / V copies with an evict-first L2 policy (session 38's
#    prepared-decode-evict-first-ab, which this call replaces).
# Gate: each side's KVCacheCuda.* tests (quick tier; SplitCountsAgreeWithinRounding runs the new path with and
# without an append, CallerWorkspace with a workspace of all-ones bits), then memcheck of those two tests on the
# change. Keep a side if its dense and paged geometric means are >= 1.01 with no cell below 0.98 and its tests
# pass; if both pass, the next call A/Bs the two together against the better one.
# Prepare on main (both cherry-pick cleanly onto main at 0d3c99f, also together):
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git worktree add -q --detach /tmp/evict HEAD && git -C /tmp/evict cherry-pick 3bcc614 &&
#     git -C /tmp/evict archive HEAD -o "$PWD/.ab/evict.tar" -- . ':!bench/results' && git worktree remove --force /tmp/evict
#   git cherry-pick 5bf28f2; gzip .ab/*.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op decode" device_ab "$L/ab" 330 .ab/evict.tar
cat "$L/ab/ab.txt"
# The last-split combine against the cluster combine on the change's build: 8 / 16 splits combine in clusters,
# 9 / 17 through global memory (nearest counts); if the global path matches the clusters at B 1, the cluster
# path (cluster_combine_decode.cuh) could go.
((SECONDS - device_t0 < 350)) && PYTHONPATH=build-gpu/python timeout 40 python3 bench/decode_splits.py \
  --batches 1 --lengths 1024,8192,32768 --splits 0,8,9,16,17,32 --samples 30 --json "$L/splits_change.json" \
  >"$L/splits_change.log" 2>&1 && tail -8 "$L/splits_change.log"
# B 16 runs unsplit dense (one CTA per SM, 28.8 us at L 1k on the H200 against cuDNN's 27.2) and in two clustered
# splits paged (30.4 us): with the combine this cheap, which of 1-4 splits (2 in clusters, 3-4 through global
# memory) is fastest now, dense and paged 16?
for page in 0 16; do
  ((SECONDS - device_t0 < 375)) || break
  PYTHONPATH=build-gpu/python timeout 30 python3 bench/decode_splits.py --batches 16 --lengths 1024,8192 \
    --splits 0,1,2,3,4 --page-size "$page" --samples 30 --json "$L/splits_b16_page${page}_change.json" \
    >"$L/splits_b16_page${page}_change.log" 2>&1 && tail -6 "$L/splits_b16_page${page}_change.log"
done
FLASHATTN_HEAD_DIMS="128" device_memcheck "$L/memcheck" \
  'KVCacheCuda.SplitCountsAgreeWithinRounding:KVCacheCuda.CallerWorkspace' $((410 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
