#!/usr/bin/env bash
# Prepared in session 28, not yet run. Where a D 64 S 512 backward tile's time goes. Even the persistent
# kernel (call 4: 284 TFLOP/s) spends ~16 us a tile, against ~11.8 us for its 8 steps at the 16k step rate
# (docs/PERF.md, backward session 28). The working tree is main with
# f42b31d cherry-picked (or main alone, to profile the non-persistent kernel), built for D 64. ncu --set full
# (natural clock) of:
#   - our main backward kernel at B 32, H 32, S 512, full, exported as details and per-SASS-instruction
#     samples (bench/ncu_stalls.py reads them);
#   - every kernel of one of our backward calls (basic set: the pre- / postprocess share);
#   - cuDNN's backward at the same shape.
# Prepare on main: git cherry-pick f42b31d && git rev-parse HEAD > .ab/change_commit; carry
# [".ab", "third_party/cutlass"]; run through ../wrap.sh (limit 400).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
shape=(--batch 32 --heads 32 --seqlen-q 512 --head-dim 64)
timeout 60 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_bwd64 \
  build-gpu/flashattn bench --backend cuda --op bwd "${shape[@]}" --samples 2 --warmup 1 --quiet \
  > $L/ncu_bwd64.log 2>&1
echo "ncu ours rc=$? at $((SECONDS - t0)) s"
timeout 40 ncu --clock-control none --launch-skip 4 -c 4 -o $L/ncu_bwd64_all \
  build-gpu/flashattn bench --backend cuda --op bwd "${shape[@]}" --samples 2 --warmup 1 --quiet \
  > $L/ncu_bwd64_all.log 2>&1
echo "ncu ours, every kernel rc=$? at $((SECONDS - t0)) s"
timeout 90 ncu --clock-control none --set full -k regex:'bprop|dgrad|bwd|backward' --launch-skip 0 -c 4 \
  -o $L/ncu_cudnn64 python3 bench/fwd_once.py --op bwd --impl cudnn --seqlen 512 --head-dim 64 --runs 2 \
  > $L/ncu_cudnn64.log 2>&1
echo "ncu cudnn rc=$? at $((SECONDS - t0)) s"
for n in bwd64 bwd64_all cudnn64; do ncu -i $L/ncu_$n.ncu-rep --page details > $L/ncu_${n}_details.txt 2>&1; done
ncu -i $L/ncu_bwd64.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_bwd64_sass.csv.gz
rm -f $L/*.ncu-rep
grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Executed Ipc A|Grid Size|L2 Cache Throughput|Compute \(SM\) Throughput" \
  $L/ncu_*_details.txt | head -70
echo "done at $((SECONDS - t0)) s"
