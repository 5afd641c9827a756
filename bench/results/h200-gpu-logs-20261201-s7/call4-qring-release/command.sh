#!/usr/bin/env bash
# Session 7 call 4: the Q ring with the previous buffer released after the tile's first softmax (call 3
# released it right after the first Q·Kᵀ's issue: causal S 512 -2.5%): every bf16 kernel built (90a),
# CudaForwardSm90 quick tier + racecheck/synccheck; A/B against c18564b (.ab/base.tar) on the forward peers
# grid, interleaved twice, same machine session; ncu stall sampling at S 512 (D128, full and causal).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
R=$(pwd); mkdir -p /tmp/base && tar xf .ab/base.tar -C /tmp/base
(cd /tmp/base && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
  -DFLASHATTN_HEAD_DIMS="64;128;256" -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON -DFLASHATTN_BUILD_TESTS=OFF \
  -DFLASHATTN_BUILD_TOOLS=OFF -DFLASHATTN_CUTLASS_DIR=$R/third_party/cutlass/include > $L/base_configure.log 2>&1 &&
  timeout 280 cmake --build build -j 6 --target flashattn_torch > $L/base_build.log 2>&1; echo "base build rc=$?" >> $L/base_configure.log) &
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build pytest" timeout 300 scripts/gpu $L > $L/gpu_summary.log 2>&1; echo "gpu build rc=$?"
wait; tail -1 $L/base_configure.log
B=build-gpu; T=$B/tests/flashattn_tests_gpu
for run in 1 2; do
  PYTHONPATH=$B/python PYTHONUNBUFFERED=1 timeout 60 python3 bench/peers.py --impls flashattn,cudnn --json $OUT/peers_qring_$run.json > $L/peers_qring_$run.log 2>&1; echo "peers qring $run rc=$?"
  PYTHONPATH=/tmp/base/build/python PYTHONUNBUFFERED=1 timeout 60 python3 bench/peers.py --impls flashattn --json $OUT/peers_base_$run.json > $L/peers_base_$run.log 2>&1; echo "peers base $run rc=$?"
done
python3 - $OUT <<'PY'
import json,sys,glob
o=sys.argv[1]
def load(f):
    d=json.load(open(f)); return {(r['D'],r['causal'],r['Sq']):r['tflops'] for r in d['rows'] if r['impl']=='flashattn'}, {(r['D'],r['causal'],r['Sq']):r['tflops'] for r in d['rows'] if r['impl']=='cudnn'}
q1,c1=load(o+'/peers_qring_1.json'); q2,c2=load(o+'/peers_qring_2.json'); b1,_=load(o+'/peers_base_1.json'); b2,_=load(o+'/peers_base_2.json')
print("D causal S | qring r1 r2 | base r1 r2 | qring/base | cudnn r1 r2")
for k in sorted(q1):
    print(k, f"| {q1[k]:.0f} {q2[k]:.0f} | {b1[k]:.0f} {b2[k]:.0f} | {(q1[k]+q2[k])/(b1[k]+b2[k]):.3f} | {c1[k]:.0f} {c2[k]:.0f}")
PY
export FLASHATTN_GPU_TIER=quick
timeout 60 $T --gtest_filter='CudaForwardSm90.*:CudaOffsets64Bit.Hopper*' > $L/tests_fwd90.log 2>&1; echo "fwd90 rc=$?"; tail -1 $L/tests_fwd90.log
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/$tool.log 2>&1; echo "$tool rc=$?"; tail -1 $L/$tool.log
done
for m in full causal; do
  c=""; [[ $m == causal ]] && c="--causal"
  timeout 60 ncu --clock-control none --set full --import-source no -k regex:fwd_sm90 --launch-skip 3 -c 1 -o $OUT/ncu_512_$m \
    $B/flashattn bench --backend cuda --head-dim 128 --batch 32 --heads 16 --seqlen-q 512 $c --samples 3 --warmup 1 --quiet \
    > $L/ncu_run_512_$m.log 2>&1
  ncu -i $OUT/ncu_512_$m.ncu-rep --page details > $L/ncu_details_512_$m.txt 2>&1
  ncu -i $OUT/ncu_512_$m.ncu-rep --page source --csv --print-source sass > $L/ncu_sass_512_$m.csv 2>&1
  rm -f $OUT/ncu_512_$m.ncu-rep
done
grep -E "Duration|Tensor is" $L/ncu_details_512_*.txt
rm -f $L/build.log $L/base_build.log
