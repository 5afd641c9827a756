#!/usr/bin/env bash
# Prepared in session 35 (not yet run): a forward that is a decode step (dense, Sq x H / Hk <= 16 query rows
# a kv head, D = Dv) runs on the split-KV decode kernel on the automatic path (core::forward_takes_decode_kernel).
# Call 1 of this session measured such a call at 0.76x cuDNN on the sm90 forward (gqa-short B 8, Hq 32 / Hkv
# 8, Sq 1, Sk 8k: 101.7 us against 77.5; 64 packed tiles on 132 SMs). Predicted there: 4 splits of 64 keys
# x 32 tiles, 256 CTAs, ~75-90 us (1.1-1.35x the forward kernel, 0.9-1.03x cuDNN); Sq 1 Sk 1k ~equal (a
# call of ~20 us either way); Sq 16 / 64 / 200 unchanged (more than 16 rows a kv head).
# (1) build D 64 / 128 bf16, the forward and decode families, with the torch binding; (2) the GPU tests of the
# route and of the decode kernel at the quick tier (CudaForwardDecodeStep.*, KVCacheCuda.*, the sm90 forward's
# RunInfo and packed tests: the probes of capabilities() now ask with 64 query rows); (3) peers.py gqa-short
# (flashattn, cuDNN) and, for the A/B, the same grid with FLASHATTN_CUDA_PATH unset against --path hopper
# (the forward kernel) in the same process if peers.py takes it, else the CLI (flashattn bench --path
# hopper / auto, Sq 1, Sk 1k / 8k, interleaved); (4) memcheck of CudaForwardDecodeStep.*.
# Prepare on main: git cherry-pick d949fb5 (the candidate, reverted in the commit after it), then
# git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
export FLASHATTN_HEAD_DIMS="64;128" FLASHATTN_DTYPES=bf16 FLASHATTN_KERNEL_FAMILIES="fwd_sm90;fwd_sm80;kvcache_sm80"
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build torch" timeout 200 scripts/gpu "$L/build" | tail -4
echo "build at $((SECONDS - t0)) s"; rm -f "$L/build/build.log"
tests='CudaForwardDecodeStep.*:KVCacheCuda.*:CudaForwardSm90.RunInfoNamesTheHopperKernel'
tests+=':CudaForwardSm90.GqaPackedTilesMatchOracle:CudaForwardSm80.RunInfo*'
FLASHATTN_GPU_TIER=quick timeout 90 build-gpu/tests/flashattn_tests_gpu --gtest_filter="$tests" > "$L/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|tests ran|Failure" "$L/tests.log"
PYTHONPATH=build-gpu/python timeout 40 python3 bench/peers.py --op fwd --grid gqa-short --impls flashattn,cudnn \
  --json "$L/gqa_short.json" > "$L/gqa_short.log" 2>&1
echo "gqa-short rc=$? at $((SECONDS - t0)) s"; sed -n '/^ceilings/,$p' "$L/gqa_short.log"
for s in 1024 8192; do
  for round in 1 2; do
    for path in auto hopper; do
      timeout 20 build-gpu/flashattn bench --backend cuda --path "$path" --op fwd --dtype bf16 --head-dim 128 \
        --heads 32 --heads-kv 8 --batch 8 --seqlen-q 1 --seqlen-k "$s" --quiet \
        --json "$L/cli_${path}_${s}_${round}.json" > /dev/null 2>> "$L/cli.log" || echo "cli $path $s failed"
    done
  done
done
for round in 1 2; do
  for path in auto hopper; do
    python3 -c 'import json, sys
runs = [json.load(open(p)) for p in sys.argv[2:]]
json.dump({**runs[0], "results": [r for run in runs for r in run["results"]]}, open(sys.argv[1], "w"))' \
      "$L/${path}_${round}.json" "$L"/cli_"${path}"_*_"${round}".json
  done
done
python3 bench/ab_compare.py --a "$L"/auto_?.json --b "$L"/hopper_?.json --peer none
left=$((400 - SECONDS + t0))
((left > 40)) && FLASHATTN_GPU_STEPS=memcheck FLASHATTN_SANITIZER_FILTER='CudaForwardDecodeStep.*' \
  FLASHATTN_SANITIZER_TIMEOUT=$((left - 10)) scripts/gpu "$L/memcheck" | tail -2
echo "done at $((SECONDS - t0)) s"
