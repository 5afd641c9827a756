#!/usr/bin/env bash
# Session 41, call 3 (the 286 s of device time left; any GPU with 132 SMs, ratios only): the L2 policies on the
# sm90 TMA loads (71db63a) against main on one GQA-long point each way (D 128, causal, Hq 32 / Hkv 8): the
# backward at S 32k and the forward at S 64k, 10 samples a point. Indicative only: the keep rule also needs the
# D 128 paper grid (s40's prepared-sm90-dqred-l2-ab, c1 side). Gate: the two SweepMatchesOracle tests.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' &&
#   gzip .ab/base.tar && git cherry-pick 71db63a && git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../h200-gpu-logs-20261204-s28/wrap.sh (limit 250).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 \
  AB_TESTS='CudaBackwardSm90.SweepMatchesOracle:CudaForwardSm90.SweepMatchesOracle' AB_TESTS_TIMEOUT=60 \
  AB_PEERS_ARGS="--op bwd --grid gqa-long --seqlens 32768 --samples 10; --op fwd --grid gqa-long --seqlens 65536 --samples 10" \
  device_ab "$L/ab" 235
echo "done at $((SECONDS - device_t0)) s"
