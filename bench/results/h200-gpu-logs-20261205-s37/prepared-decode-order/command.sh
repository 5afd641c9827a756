#!/usr/bin/env bash
# Prepared in session 37 (not yet run; H200 only, the numbers): why peers.py timed flashattn's dense
# decode at B 64 L 1k / 32k (and B 16 L 1k) 6-9% slower than session 23 and than decode_splits.py did in the
# same build (82.7 against 76.4 us, 2050-2066 against 1887 us), while cuDNN's cells matched. In peers.py
# flashattn dense is the first implementation timed after each point's fp32 reference. (1) The decode grid
# with the implementations in the other order, cuDNN first and flashattn last; (2) the same grid in the
# usual order; (3) decode_splits.py of the three cells. If flashattn's cells move with the order, peers.py
# should time the implementations in interleaved rounds (what scripts/ab does for its two sides).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 330).
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
[[ $gpu == *H200* ]] || { echo "not an H200 ($gpu): nothing run"; exit 0; }
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
export FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80"
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build torch" timeout 200 scripts/gpu "$L/build" | tail -3
echo "build at $((SECONDS - t0)) s"; rm -f "$L/build/build.log"
run() {  # log name, limit, arguments
  local name=$1 limit=$2; shift 2
  PYTHONPATH=build-gpu/python timeout "$limit" python3 "$@" > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - t0)) s"
}
run decode_reversed 40 bench/peers.py --json "$L/decode_reversed.json" --op decode --impls cudnn,fa2,flashattn
run decode_usual 40 bench/peers.py --json "$L/decode_usual.json" --op decode --impls flashattn,fa2,cudnn
run splits_dense 40 bench/decode_splits.py --batches 16,64 --lengths 1024,32768 --splits 0,1,2 --json "$L/splits_dense.json"
for n in decode_reversed decode_usual; do sed -n '/^B /,$p' "$L/$n.log"; done
tail -12 "$L/splits_dense.log"
echo "done at $((SECONDS - t0)) s"
