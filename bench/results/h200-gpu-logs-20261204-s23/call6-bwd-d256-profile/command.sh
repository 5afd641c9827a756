#!/usr/bin/env bash
# Session 23 call 6: ncu --set full of the D 256 backward after call 5's change (dO released after the dS
# barrier, Sᵀ before the dO wait; commit in .ab/change_commit) at B 1 H 8 S 16k full, as call 4 profiled
# its parent: details + per-SASS samples, to see what is left of the dO wait. D 256 CLI build only.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
  -DFLASHATTN_HEAD_DIMS=256 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=OFF -DFLASHATTN_BUILD_TESTS=OFF \
  -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include > $L/build.log 2>&1 &&
  timeout 150 cmake --build build-gpu -j 16 --target flashattn_cli >> $L/build.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; grep -E "error" $L/build.log | head -5
timeout 80 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_bwd256 \
  build-gpu/flashattn bench --backend cuda --op bwd --batch 1 --heads 8 --seqlen-q 16384 --head-dim 256 \
  --samples 2 --warmup 1 --quiet > $L/ncu_bwd256.log 2>&1
echo "ncu rc=$? at $((SECONDS - t0)) s"
ncu -i $L/ncu_bwd256.ncu-rep --page details > $L/ncu_bwd256_details.txt 2>&1
ncu -i $L/ncu_bwd256.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_bwd256_sass.csv.gz
rm -f $L/*.ncu-rep $L/build.log
grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|Executed Ipc A" $L/ncu_bwd256_details.txt | head
echo "done at $((SECONDS - t0)) s"
