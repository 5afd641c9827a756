#!/usr/bin/env bash
# Ran in session 52: its logs are ../../h200-gpu-logs-20261206-s52/call2-decode-combine-chains-ab/.
# Prepared in session 50 (not run; any GPU with 132 SMs, ~480 s). The decode combine with a CTA per row and a
# warp per split chain (6c1a74e: split s folds into chain s % 4, the chains summed (c0 + c1) + (c2 + c3); the
# cluster path folds in the same chains, so the two paths still agree bit for bit) against main. Call 1: with
# the partials in L2 our combine takes 6.43 / 5.41 us at B 1 L 128k / B 4 L 32k against cuDNN's 4.35 / 3.71,
# the difference time on the SM (~2.4 us a CTA at B 4 against 1.1), and session 49's one-warp CTAs (fewer rows
# per SM, the same chain per warp) gained nothing: what a CTA waits on is its lanes' 32 loads and their
# 32-long FMA chain, each step behind a shuffle and an exponential. Four chains make both 8 long, 72 registers
# (185 before). Predicted: -1 to -2 us where the combine kernel runs: B 1 L 128k +0.6-1%, B 4 L 32k +0.5%,
# B 1 L 32k and B 4 L 8k +1-3%; cluster and one-split cells within noise. Keep if dense and paged geometric
# means >= 1.000, the combine-kernel cells >= 1.003 on average, no cell < 0.985, KVCacheCuda.* pass (among
# them the bitwise agreement of the cluster and combine paths). Then ncu of the new combine with the partials
# in L2 (against call 1's 6.43 / 5.41 us), and memcheck.
# Prepare: git checkout 6c1a74e -- src (the working tree is the change; git reset, restore after);
# .ab/base.tar.gz from main (git archive HEAD -o .ab/base.tar -- . ':!bench/results', gzip); git rev-parse
# HEAD > .commit; carry [".ab", "third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 560).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=150 \
  AB_PEERS_ARGS="--op decode" device_ab "$L/ab" 330
export PYTHONPATH=build-gpu/python
for shape in "1 131072" "4 32768"; do
  read -r b len <<<"$shape"
  timeout 30 ncu --clock-control none --cache-control none --section SpeedOfLight --section LaunchStats \
    --launch-skip 2 -c 3 -k regex:'decode' -o "$L/ncu_b$b" \
    python3 bench/decode_once.py --batch "$b" --length "$len" --runs 3 >"$L/ncu_b$b.log" 2>&1
  ncu -i "$L/ncu_b$b.ncu-rep" --page details >"$L/ncu_b${b}_details.txt" 2>&1
  rm -f "$L/ncu_b$b.ncu-rep"
done
grep -E "^  [a-zA-Z_].*\(|Duration|SM Active Cycles|Registers Per" "$L"/ncu_*_details.txt | cut -c1-160
echo "ncu done at $((SECONDS - device_t0)) s"
FLASHATTN_HEAD_DIMS="128" device_memcheck "$L/memcheck" 'KVCacheCuda.SplitCountsAgreeWithinRounding' \
  $((540 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
