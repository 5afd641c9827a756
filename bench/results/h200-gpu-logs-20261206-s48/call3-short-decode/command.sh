#!/usr/bin/env bash
# Session 48, call 3: for the 309 s of device time left, which a start may mostly take, so the logs are
# packed into $OUT/logs.tgz after every step and whatever ran comes back when the limit cuts the call. On an
# H200: issue 6's decode grid (flashattn and cuDNN alone in the process, main with the one-round combine). On
# any other GPU: call 2's timings of B 1 L 128k and B 4 L 32k, ours and cuDNN's (decode_once --time).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run directly (no wrap.sh).
set -uo pipefail
source scripts/device-call-lib.sh
rm -rf "$L"
L=/tmp/s48logs
mkdir -p "$L"
pack() { tar czf "$OUT/logs.tgz" -C /tmp s48logs; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader | tee "$L/gpu.txt"
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 150
pack
if grep -q H200 "$L/gpu.txt"; then
  device_peers "$L" decode 100 --op decode --impls flashattn,cudnn
  pack
  sed -n '/^copy ceiling/,$p' "$L/decode.log" | head -30
else
  export PYTHONPATH=build-gpu/python
  for shape in "1 131072" "4 32768"; do
    read -r b len <<<"$shape"
    for impl in flashattn cudnn; do
      timeout 40 python3 bench/decode_once.py --impl "$impl" --batch "$b" --length "$len" --time 100 \
        >"$L/time_${impl}_b$b.log" 2>&1
      echo "== $impl B $b L $len"; cat "$L/time_${impl}_b$b.log"
      pack
    done
  done
fi
echo "done at $((SECONDS - device_t0)) s"
