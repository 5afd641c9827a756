#!/usr/bin/env bash
# Session 8 call 3: why the portable forward trails FlashAttention-2 at D 256, full, S 512 (0.97-0.98x in
# call 2a and session 4): ncu --set full of one launch of each kernel at B 32, H 8, S 512, bf16 (the
# peers grid's cell), flashattn forced onto the portable path, built for 90a with D 256 bf16 only.
set -uo pipefail
export FLASHATTN_COMMIT=74a90e4
L=$OUT/logs; mkdir -p $L
cmake -S . -B build-ncu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
  -DFLASHATTN_HEAD_DIMS=256 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON -DFLASHATTN_BUILD_TESTS=OFF \
  -DFLASHATTN_PTXAS_VERBOSE=ON -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include > $L/configure.log 2>&1
timeout 200 cmake --build build-ncu -j 16 --target flashattn_torch > $L/build.log 2>&1; echo "build rc=$?"
grep -A3 "fwd_sm80" $L/build.log | grep -E "registers|spill" | head -6
for impl in flashattn fa2; do
  k=$([[ $impl == flashattn ]] && echo "regex:fwd_sm80" || echo "regex:flash_fwd")
  PYTHONPATH=build-ncu/python timeout 150 ncu --clock-control none --set full --import-source no -k "$k" --launch-skip 3 -c 1 \
    -o $L/ncu_$impl python3 bench/peers.py --head-dims 256 --seqlens 512 --masks full --impls $impl --path portable \
    --samples 3 > $L/ncu_run_$impl.log 2>&1; echo "ncu $impl rc=$?"
  ncu -i $L/ncu_$impl.ncu-rep --page details > $L/ncu_details_$impl.txt 2>&1
  ncu -i $L/ncu_$impl.ncu-rep --page raw --csv > $L/ncu_raw_$impl.csv 2>&1
  rm -f $L/ncu_$impl.ncu-rep
done
grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc Active|Block Limit|Theoretical Occ|Shared Memory Config|Dynamic Shared" $L/ncu_details_*.txt
rm -f $L/build.log
