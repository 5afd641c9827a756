#!/usr/bin/env bash
# Prepared in session 35 (not yet run): issue 4's evidence grids of main as it stands (the last full forward
# grid is session 24's, h200-fwd-20261204-s24.json; since then GQA packing, its round rule and D 192 / Dv 128
# landed, the D 64 / 128 / 256 sm90 kernels unchanged). On an H200 only (the numbers), flashattn and
# cuDNN in one process each: (1) the paper grid, bf16, D 64 / 128 / 256, full and causal, S 512-16k, B·S 16k,
# hidden 2048; (2) gqa-long (Hq 32 / Hkv 8, D 128, causal); (3) fp16 at D 128; (4) RunInfo's kernel per row
# is in the JSON (the sm90 kernel named in every cell is part of the evidence).
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
export FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="fp16;bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90"
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build torch" timeout 200 scripts/gpu "$L/build" | tail -4
echo "build at $((SECONDS - t0)) s"; rm -f "$L/build/build.log"
peers() {  # log name, limit, peers.py arguments
  local name=$1 limit=$2; shift 2
  PYTHONPATH=build-gpu/python timeout "$limit" python3 bench/peers.py --json "$L/$name.json" "$@" > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - t0)) s"
}
peers fwd 90 --op fwd --impls flashattn,cudnn
peers fwd_gqa_long 60 --op fwd --grid gqa-long --impls flashattn,cudnn
peers fwd_fp16 40 --op fwd --dtype fp16 --head-dims 128 --impls flashattn,cudnn
for n in fwd fwd_gqa_long fwd_fp16; do sed -n '/^ceilings/,$p' "$L/$n.log" | head -40; done
echo "done at $((SECONDS - t0)) s"
