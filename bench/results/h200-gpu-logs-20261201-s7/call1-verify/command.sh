#!/usr/bin/env bash
# Session 7 call 1: every kernel built for 90a with the torch binding; GPU tests (quick tier, 4 at once) to
# verify session 6's GPU-unverified commits (64-bit offsets, shared-memory dispatch check, one-PTX portable
# build) and the sm90 forward's early Q release; pytest; forward peers grid (D 64/128/256, bf16).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
export FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build ctest pytest peers" FLASHATTN_GPU_TIER=quick \
  FLASHATTN_CTEST_TIMEOUT=300 FLASHATTN_CTEST_JOBS=4 FLASHATTN_PEERS_ARGS="--impls flashattn,cudnn,fa2"
timeout 560 scripts/gpu $L > $L/gpu_summary.log 2>&1; echo "gpu rc=$?"
cp $L/peers_fwd.json $OUT/ 2>/dev/null
tail -60 $L/gpu_summary.log
grep -E "Failed|FAILED|tests passed" $L/ctest_gpu.log | tail -15
rm -f $L/build.log
cd $OUT && tar czf logs.tgz logs && rm -rf logs
