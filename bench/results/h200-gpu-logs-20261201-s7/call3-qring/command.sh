#!/usr/bin/env bash
# Session 7 call 3: the sm90 forward's Q ring (two Q buffers at D 64/96/128, O staged in the tile's Q buffer,
# Q laid out per consumer warpgroup): every forward kernel built (90a), CudaForwardSm90 full tier,
# memcheck/racecheck/synccheck on its quick sweep; A/B against the previous commit (c18564b, carried as
# .ab/base.tar) on the forward peers grid, interleaved twice, same machine session.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
R=$(pwd); mkdir -p /tmp/base && tar xf .ab/base.tar -C /tmp/base
(cd /tmp/base && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
  -DFLASHATTN_HEAD_DIMS="64;128;256" -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON -DFLASHATTN_BUILD_TESTS=OFF \
  -DFLASHATTN_BUILD_TOOLS=OFF -DFLASHATTN_CUTLASS_DIR=$R/third_party/cutlass/include > $L/base_configure.log 2>&1 &&
  timeout 280 cmake --build build -j 6 --target flashattn_torch > $L/base_build.log 2>&1; echo "base build rc=$?" >> $L/base_configure.log) &
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build pytest" timeout 300 scripts/gpu $L > $L/gpu_summary.log 2>&1; echo "gpu build rc=$?"
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
FLASHATTN_GPU_TIER=full timeout 120 $T --gtest_filter='CudaForwardSm90.*:CudaOffsets64Bit.Hopper*' > $L/tests_fwd90_full.log 2>&1; echo "fwd90 full rc=$?"; tail -3 $L/tests_fwd90_full.log
export FLASHATTN_GPU_TIER=quick
for tool in memcheck racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/$tool.log 2>&1; echo "$tool rc=$?"; tail -2 $L/$tool.log
done
rm -f $L/build.log $L/base_build.log
