#!/usr/bin/env bash
# Session 37, call 2: staggered walk starts at D 64 / 128 (full attention's backward). With an unbounded right
# window every key block walks the query blocks from 0, so the ~128 CTAs of one head running together (key
# blocks fastest in the tile order) reduce-add their dQ into the same rows at every step; L2 serialises
# additions to one address. H200 session 35: D 128 full 613 TFLOP/s at 8k (64 key blocks a head) but 599 at
# 16k (128). Session 23's one-start-per-key-block rotation cost D 128 0.99-1.00 (the CTAs walking together
# no longer share a Q / dO block in L2); groups of consecutive key blocks sharing a start keep that sharing
# within a group and divide the additions into one row by the groups running at once.
# Change (working tree, 7dee0b8): groups of 32; candidate c_group16 (0e07119): groups of 16; base 8e75733.
# Predicted D 128 full 16k +1-3%, 8k +0.5-1%, 4k and below unchanged with 32 (one group), D 64 alike.
# scripts/ab, D 64 / 128 full only (causal walks start on the diagonal: unchanged), two runs a side; the
# change's and candidate's GPU tests at the quick tier first (gate), the new LongKeysWalkFromStaggeredStarts among them.
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 430).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
gunzip -f .ab/*.tar.gz
tests='CudaBackwardSm90.LongKeysWalkFromStaggeredStarts:CudaBackwardSm90.SweepMatchesOracle'
tests+=':CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.ABatchOf60IsStableAcrossReruns'
FLASHATTN_HEAD_DIMS="64;128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build \
  FLASHATTN_GPU_TIER=quick AB_TESTS="$tests" AB_TESTS_TIMEOUT=90 AB_TESTS_GATE=1 \
  AB_PEERS_ARGS="--op bwd --head-dims 64,128 --masks full" timeout 400 scripts/ab "$L/ab" .ab/base.tar \
  .ab/c_group16.tar 2>&1 | tee "$L/ab.log" | grep -E "^(ab:|[0-9]|rows|D |geometric)"
echo "ab rc=${PIPESTATUS[0]} at $((SECONDS - t0)) s"
grep -hE "^\[  (     OK|FAILED|  SKIPPED) \]" "$L"/ab/tests*.log | head -20
rm -f "$L/ab/change/build.log"
echo "done at $((SECONDS - t0)) s"
