#!/usr/bin/env bash
# Session 36, call 1 (H200): session 35's prepared-forward-grids (issue 4's evidence: the paper grid, gqa-long,
# fp16 D 128, flashattn and cuDNN in one process each) run on main with candidate d949fb5 cherry-picked (a
# forward that is a decode step, Sq x H / Hk <= 16 rows a kv head, runs on the split-KV decode kernel). The
# candidate does not touch the grids' cells (Sq = Sk >= 512). Its A/B on an H100 (this session, before this
# call): Sq 1 Sk 8k 109.0 us against 108.0 on the forward kernel (0.99), Sk 1k 25.8 against 23.3 (0.91); on the
# H100 both read the cache at the copy bandwidth. On the H200 the forward kernel read it at 2.64 TB/s (64
# packed tiles on 132 SMs, session 35: 101.7 us against cuDNN 77.5), so this call measures the candidate there:
# gqa-short with --path auto (the decode kernel where Sq = 1) and --path hopper (the forward kernel),
# alternated twice, flashattn only, then once with cuDNN.
# Prepare: git cherry-pick d949fb5; git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"];
# run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 430).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
export FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="fp16;bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80"
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
for round in 1 2; do
  for path in auto hopper; do
    peers "gqa_short_${path}_$round" 20 --op fwd --grid gqa-short --impls flashattn --path "$path"
  done
done
peers gqa_short 30 --op fwd --grid gqa-short --impls flashattn,cudnn
python3 bench/ab_compare.py --a "$L"/gqa_short_auto_?.json --b "$L"/gqa_short_hopper_?.json --peer none
for n in fwd fwd_gqa_long fwd_fp16 gqa_short; do sed -n '/^ceilings/,$p' "$L/$n.log" | head -40; done
echo "done at $((SECONDS - t0)) s"
