#!/usr/bin/env bash
# Session 16 call 3 (fresh machine): 4e681cc (pairs from two per SM, so D 256 causal S 512 / 1k take them)
# built with the torch binding (D 64/128/256, bf16 + fp16; its tests too), and 273be4e (D 256 bf16) as the base:
#  - A/B: D 256 causal S 512 - 2k, change and base alternated twice (S 2k is a control: not paired);
#  - the paper forward grid (flashattn and cuDNN in one process), fp16 at D 128, long-context GQA.
set -uo pipefail
export FLASHATTN_COMMIT=4e681cc
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
base=/tmp/base; mkdir -p $base && tar xf .ab/base.tar -C $base
(cmake -S $base -B $base/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
  -DFLASHATTN_HEAD_DIMS=256 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON -DFLASHATTN_BUILD_TESTS=OFF \
  -DFLASHATTN_BUILD_TOOLS=OFF -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include &&
  cmake --build $base/build -j 4 --target flashattn_torch) > $L/build_base.log 2>&1 &
bb=$!
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="bf16;fp16" FLASHATTN_GPU_STEPS="build torch" \
  timeout 360 scripts/gpu $L/gpu > $L/gpu_summary.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -3 $L/gpu_summary.log
wait $bb; echo "base build rc=$? at $((SECONDS - t0)) s"
P="python3 bench/peers.py"; A="--impls flashattn --head-dims 256 --masks causal --seqlens 512,1024,2048"
for r in 1 2; do
  PYTHONPATH=build-gpu/python timeout 30 $P $A --json $L/d256_change_$r.json > $L/d256_change_$r.log 2>&1
  PYTHONPATH=$base/build/python FLASHATTN_COMMIT=273be4e timeout 30 $P $A --json $L/d256_base_$r.json > $L/d256_base_$r.log 2>&1
done
python3 bench/ab_compare.py --a $L/d256_change_*.json --b $L/d256_base_*.json | tee $L/d256_ab.txt
echo "ab done at $((SECONDS - t0)) s"
export PYTHONPATH=build-gpu/python; R=$OUT
timeout 80 $P --impls flashattn,cudnn --json $R/h200-fwd-20261203-s16.json > $L/fwd.log 2>&1; echo "fwd rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/fwd.log
((SECONDS - t0 < 500)) && timeout 35 $P --impls flashattn,cudnn --head-dims 128 --dtype fp16 --json $R/h200-fwd-20261203-s16-fp16.json > $L/fwd_fp16.log 2>&1; echo "fp16 rc=$? at $((SECONDS - t0)) s"
((SECONDS - t0 < 530)) && timeout 45 $P --grid gqa-long --impls flashattn,cudnn --json $R/h200-fwd-20261203-s16-gqa-long.json > $L/gqa.log 2>&1; echo "gqa rc=$? at $((SECONDS - t0)) s"
sed -n '/^D /,$p' $L/gqa.log
for f in $R/*.json; do python3 -c "import json,sys; d=json.load(open('$f')); print('$f', len(d['rows']), sum(1 for r in d['rows'] if r.get('verified')))"; done
echo "done at $((SECONDS - t0)) s"
