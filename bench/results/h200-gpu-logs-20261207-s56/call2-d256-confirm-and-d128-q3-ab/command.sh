#!/usr/bin/env bash
# Session 56, call 2 (~450 s on a fresh machine). On an H200: issues 4-6's evidence grids
# (device_evidence_on_h200: session 47's call3, D 128 and GQA-long). On any other GPU, one base (83f000b)
# and two changes timed in the same interleaved runs:
# - change, the working tree at 91a0acf (= dab1ad3's kernels): the cut tiles' write and merge out of line at
#   D 256 only. Call 1 measured the same D 256 SASS (ac6a028's, cmp-identical) at +1.0-1.5% on six cells;
#   this is the second measurement. Its D 128 kernels are the base's (kOutOfLine is false there), so its
#   D 128 cells read the noise. Predicted: D 256 S >= 2k +1.0-1.5%, S <= 1k 1.000 +- 0.3% (no split-tail
#   code in that tile).
# - c1 (.ab/c1.tar, fdf1845 = dab1ad3 + D 128's short-key tile with 3 Q + 2 K + 2 V stages instead of
#   2 + 2 + 3). Predicted: D 128 causal S 512 / 1k +1-3%, the other D 128 cells -1 ... -4%.
# Prepare: working tree at 91a0acf; .ab/base.tar.gz = git archive 83f000b, .ab/c1.tar.gz = git archive
# fdf1845 (':!bench/results'); .ab/cutlass.tgz; .commit; carry [".ab", ".commit"]; through
# ../../h200-gpu-logs-20261204-s28/wrap.sh 520.
set -uo pipefail
source scripts/device-call-lib.sh
device_evidence_on_h200
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=6 AB_TESTS_TIMEOUT=120 \
  AB_TESTS='CudaForwardSm90.SweepMatchesOracle:CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas' \
  AB_PEERS_ARGS="--op fwd --head-dims 128,256 --seqlens 512,1024,2048,4096; --op fwd --head-dims 128 --masks causal --seqlens 16384" \
  device_ab "$L/ab" 480 .ab/c1.tar
echo "done at $((SECONDS - device_t0)) s"
