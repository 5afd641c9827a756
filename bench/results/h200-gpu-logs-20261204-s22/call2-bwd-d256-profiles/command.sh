#!/usr/bin/env bash
# Session 22 call 2: why the 64-row D 256 backward (call 1) ran 0.87-0.96x the 32-row one. Three CLI-only
# builds (D 256, bf16): base f7b99fa (32 rows, dQ by TMA reduce-add), v1 1c97542 (64 rows, 8-byte
# reductions), v2 = HEAD (.ab/change_commit; 16-byte reductions). flashattn bench of each at B 1 H 8 S 16k
# full / causal and B 4 S 4k full; then ncu --set full of v2 and base at S 16k full (details + per-SASS
# samples).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
mkdir -p /tmp/base /tmp/v1 && tar xzf .ab/base.tar.gz -C /tmp/base && tar xzf .ab/v1.tar.gz -C /tmp/v1
build() {
  cmake -S $1 -B $1/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
    -DFLASHATTN_HEAD_DIMS=256 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=OFF -DFLASHATTN_BUILD_TESTS=OFF \
    -DFLASHATTN_PTXAS_VERBOSE=ON -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include &&
    cmake --build $1/build -j 6 --target flashattn_cli
}
build /tmp/base > $L/build_base.log 2>&1 & build /tmp/v1 > $L/build_v1.log 2>&1 & build $PWD > $L/build_v2.log 2>&1 &
wait
echo "builds at $((SECONDS - t0)) s"; grep -h -A1 'bwd_sm90_kernel' $L/build_*.log | grep -E 'spill|registers' | head -6
declare -A cli=([base]=/tmp/base/build/flashattn [v1]=/tmp/v1/build/flashattn [v2]=$PWD/build/flashattn)
for round in 1 2; do
  for v in base v1 v2; do
    ${cli[$v]} bench --backend cuda --op bwd --batch 1 --heads 8 --seqlen-q 16384 --head-dim 256 --samples 10 \
      --quiet --json $L/bench_${v}_16k_full_$round.json > $L/bench_${v}_16k_full_$round.log 2>&1
    ${cli[$v]} bench --backend cuda --op bwd --batch 1 --heads 8 --seqlen-q 16384 --head-dim 256 --causal \
      --samples 10 --quiet --json $L/bench_${v}_16k_causal_$round.json > $L/bench_${v}_16k_causal_$round.log 2>&1
    ${cli[$v]} bench --backend cuda --op bwd --batch 4 --heads 8 --seqlen-q 4096 --head-dim 256 --samples 10 \
      --quiet --json $L/bench_${v}_4k_full_$round.json > $L/bench_${v}_4k_full_$round.log 2>&1
  done
done
echo "bench at $((SECONDS - t0)) s"
grep -h -iE 'tflop|TFLOP' $L/bench_*_1.log | head -20
for v in v2 base; do
  timeout 90 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_$v \
    ${cli[$v]} bench --backend cuda --op bwd --batch 1 --heads 8 --seqlen-q 16384 --head-dim 256 --samples 2 \
    --warmup 1 --quiet > $L/ncu_$v.log 2>&1
  echo "ncu $v rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_$v.ncu-rep --page details > $L/ncu_${v}_details.txt 2>&1
  ncu -i $L/ncu_$v.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_${v}_sass.csv.gz
done
rm -f $L/*.ncu-rep
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Executed Ipc A" $L/ncu_*_details.txt | head -20
echo "done at $((SECONDS - t0)) s"
