#!/usr/bin/env bash
# Session 49, call 10 (the last ~240 s of device time, so ~100-150 s of running after a start): the logs are
# packed into $OUT/logs.tgz after every step, so whatever the limit cuts still comes back. On an H200: issue 6's
# decode grid on main (1f26dbf's split rule), flashattn and cuDNN alone in the process. On any other GPU: call 8's
# H100 branch, shortened: ncu with the partials left in L2 of our combine and cuDNN's reduction at B 1 L 128k,
# then B 1 L 1k at 4-16 splits against cuDNN. Run directly (not through wrap.sh); carry ["third_party/cutlass",
# ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
pack() { (cd "$OUT" && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader | tee "$L/gpu.txt"
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 90
pack
if grep -q H200 "$L/gpu.txt"; then
  device_peers "$L" decode 60 --op decode --impls flashattn,cudnn
  sed -n '/^copy ceiling/,$p' "$L/decode.log" | head -30
  pack
  exit 0
fi
export PYTHONPATH=build-gpu/python
for impl in flashattn cudnn; do
  timeout 25 ncu --clock-control none --cache-control none --section SpeedOfLight --launch-skip 2 -c 3 \
    -k regex:'decode|sdpa|lean|reduction' -o "$L/ncu_${impl}_b1" \
    python3 bench/decode_once.py --impl "$impl" --batch 1 --length 131072 --runs 3 >"$L/ncu_${impl}_b1.log" 2>&1
  ncu -i "$L/ncu_${impl}_b1.ncu-rep" --page details >"$L/ncu_${impl}_b1_details.txt" 2>&1
  rm -f "$L/ncu_${impl}_b1.ncu-rep"
  grep -E "^  [a-zA-Z_].*\(|Duration|SM Active Cycles" "$L/ncu_${impl}_b1_details.txt" | cut -c1-120
  pack
done
for s in 8 4 16; do
  echo "== B 1 L 1k, $s splits: $(timeout 20 python3 bench/decode_once.py --batch 1 --length 1024 --num-splits $s \
    --time 100 2>&1 | grep -E 'peers.time')" | tee -a "$L/b1_1k.txt"
done
echo "== cudnn B 1 L 1k: $(timeout 20 python3 bench/decode_once.py --impl cudnn --batch 1 --length 1024 --time 100 \
  2>&1 | grep -E 'peers.time')" | tee -a "$L/b1_1k.txt"
pack
echo "done at $((SECONDS - device_t0)) s"
