#!/usr/bin/env bash
# Prepared in session 37 (not yet run; H200 only, the numbers): why peers.py timed flashattn's dense
# decode at B 64 L 1k / 32k (and B 16 L 1k) 6-9% slower than session 23 and than decode_splits.py did in the
# same build (82.7 against 76.4 us, 2050-2066 against 1887 us), while cuDNN's cells matched. In peers.py
# flashattn dense is the first implementation timed after each point's fp32 reference. (1) The decode grid
# with the implementations in the other order, cuDNN first and flashattn last; (2) the same grid in the
# usual order; (3) decode_splits.py of the three cells. If flashattn's cells move with the order, peers.py
# should time the implementations in interleaved rounds (what scripts/ab does for its two sides).
# (4) Then B 1 L 32k, the widest dense gap with a stable cause (0.95x cuDNN in every run since session 21,
# 32 splits through the combine kernel): each implementation's timings (decode_once --time) and ncu of one
# step's kernels, ours (decode + combine) and cuDNN's, natural clock: how much of the 2.3 us is the combine
# kernel and its dependency, how much the main kernel's ramp and tail.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 480).
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
L=$OUT/logs; mkdir -p "$L"
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" \
  device_build "$L/build" 200
run() {  # log name, limit, a bench/ script and its arguments
  local name=$1 limit=$2; shift 2
  PYTHONPATH=build-gpu/python timeout "$limit" python3 "$@" > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - device_t0)) s"
}
device_peers "$L" decode_reversed 40 --op decode --impls cudnn,fa2,flashattn
device_peers "$L" decode_usual 40 --op decode --impls flashattn,fa2,cudnn
run splits_dense 40 bench/decode_splits.py --batches 16,64 --lengths 1024,32768 --splits 0,1,2 \
  --json "$L/splits_dense.json"
for n in decode_reversed decode_usual; do sed -n '/^B /,$p' "$L/$n.log"; done
tail -12 "$L/splits_dense.log"
for impl in flashattn cudnn; do
  run "b1_time_$impl" 40 bench/decode_once.py --impl "$impl" --batch 1 --length 32768 --time 200
  cat "$L/b1_time_$impl.log"
done
export PYTHONPATH=build-gpu/python
timeout 60 ncu --clock-control none --set full -k regex:'decode_sm80|combine_decode' --launch-skip 4 -c 4 \
  -o "$L/ncu_b1_ours" python3 bench/decode_once.py --batch 1 --length 32768 --runs 4 > "$L/ncu_b1_ours.log" 2>&1
echo "ncu ours rc=$? at $((SECONDS - device_t0)) s"
timeout 60 ncu --clock-control none --set full -k regex:'sdpa|fmha|cudnn|flash|attn' --launch-skip 2 -c 2 \
  -o "$L/ncu_b1_cudnn" python3 bench/decode_once.py --impl cudnn --batch 1 --length 32768 --runs 4 \
  > "$L/ncu_b1_cudnn.log" 2>&1
echo "ncu cudnn rc=$? at $((SECONDS - device_t0)) s"
for n in b1_ours b1_cudnn; do ncu -i "$L/ncu_$n.ncu-rep" --page details > "$L/ncu_${n}_details.txt" 2>&1; done
grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Cluster Size|DRAM Throughput" "$L"/ncu_b1_*_details.txt | head -40
rm -f "$L"/*.ncu-rep
echo "done at $((SECONDS - device_t0)) s"
