#!/usr/bin/env bash
# Prepared in session 36 (not yet run; needs an H200: on an H100 both kernels read the cache at the copy
# rate, and call 0 / 1 of session 36 measured no gain there). The decode-step route (d949fb5, re-applied as
# a38cd10 and reverted in 8f2a936): a dense forward with Sq x H / Hk <= 16 query rows a kv head and D = Dv runs
# on the split-KV decode kernel. Session 35 measured the sm90 forward at B 8, Hq 32 / Hkv 8, Sq 1, Sk 8k on the
# H200 at 101.7 us against cuDNN's 77.5 (2.64 TB/s of 4.8); predicted on the decode kernel 75-90 us. Its tests
# passed in session 36 call 0 (H100). This call: gqa-short with --path auto (the decode kernel at Sq 1) and
# --path hopper (the forward kernel), alternated twice, flashattn only, then with cuDNN. Keep the route if Sq 1
# Sk 8k wins clearly on the H200; Sk 1k ran 0.87-0.91x on the H100, so a length bound may be needed.
# Prepare on main: git cherry-pick a38cd10; git rev-parse HEAD > .commit; carry ["third_party/cutlass",
# ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 300).
# (Session 37: opens with scripts/device-call-lib.sh's guard, so an H100 start runs nothing.)
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
L=$OUT/logs; mkdir -p "$L"
nvidia-smi --query-gpu=name,clocks.sm --format=csv > "$L/gpu.txt"; cat "$L/gpu.txt"
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES=bf16 FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" \
  device_build "$L/build" 200
for round in 1 2; do
  for path in auto hopper; do
    device_peers "$L" "gqa_short_${path}_$round" 20 --op fwd --grid gqa-short --impls flashattn --path "$path"
  done
done
device_peers "$L" gqa_short 30 --op fwd --grid gqa-short --impls flashattn,cudnn
python3 bench/ab_compare.py --a "$L"/gqa_short_auto_?.json --b "$L"/gqa_short_hopper_?.json --peer none
sed -n '/^ceilings/,$p' "$L/gqa_short.log"
echo "done at $((SECONDS - device_t0)) s"
