#!/usr/bin/env bash
# Session 37, call 3 (H200, warm after call 2): the issues' evidence grids of main 8e75733 (+ reverted
# candidates), flashattn and cuDNN in one process each: backward paper grid (with flashattn_det), forward
# paper grid, backward and forward gqa-long, forward fp16 D 128.
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
export FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="fp16;bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90"
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build torch" timeout 230 scripts/gpu "$L/build" | tail -4
echo "build at $((SECONDS - t0)) s"; rm -f "$L/build/build.log"
peers() {  # log name, limit, peers.py arguments
  local name=$1 limit=$2; shift 2
  PYTHONPATH=build-gpu/python timeout "$limit" python3 bench/peers.py --json "$L/$name.json" "$@" > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - t0)) s"
}
peers bwd 110 --op bwd --impls flashattn,flashattn_det,cudnn
peers fwd 90 --op fwd --impls flashattn,cudnn
peers bwd_gqa_long 80 --op bwd --grid gqa-long --impls flashattn,cudnn
left=$((570 - SECONDS + t0)); ((left > 30)) && peers fwd_gqa_long $((left > 60 ? 60 : left)) --op fwd --grid gqa-long --impls flashattn,cudnn
left=$((575 - SECONDS + t0)); ((left > 20)) && peers fwd_fp16 $((left > 40 ? 40 : left)) --op fwd --dtype fp16 --head-dims 128 --impls flashattn,cudnn
for n in bwd fwd bwd_gqa_long fwd_gqa_long fwd_fp16; do [[ -f $L/$n.log ]] && sed -n '/^ceilings/,$p' "$L/$n.log" | head -45; done
echo "done at $((SECONDS - t0)) s"
