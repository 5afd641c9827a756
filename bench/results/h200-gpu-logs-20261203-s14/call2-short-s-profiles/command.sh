#!/usr/bin/env bash
# Session 14 call 2 (build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16", built on the CPU machine):
# where the time goes at short sequences, B 32, H 16, S 512, D 128, full: the durations of the backward's
# three kernels, then ncu --set full (with per-instruction SASS samples) of the backward's main kernel and of
# the Hopper forward.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
C=build-bin/flashattn; ldd $C | grep "not found"
S="--batch 32 --heads 16 --seqlen-q 512 --head-dim 128"
timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:bwd_ $C bench --backend cuda --op bwd $S \
  --samples 2 --warmup 1 --quiet > $L/bwd_times.log 2>&1; echo "times rc=$? at $((SECONDS - t0)) s"
grep -E "bwd_|duration" $L/bwd_times.log | tail -12
timeout 40 $C bench --backend cuda --op bwd $S --samples 20 --warmup 3 > $L/bwd_bench.log 2>&1; tail -4 $L/bwd_bench.log
timeout 40 $C bench --backend cuda --op fwd $S --samples 20 --warmup 3 > $L/fwd_bench.log 2>&1; tail -4 $L/fwd_bench.log
for k in bwd_sm90 fwd_sm90; do
  op=${k%%_*}
  timeout 60 ncu --clock-control none --set full --import-source no -k regex:$k --launch-skip 1 -c 1 -o /tmp/${k}_512 \
    $C bench --backend cuda --op $op $S --samples 2 --warmup 1 --quiet > $L/ncu_$k.log 2>&1
  echo "ncu $k rc=$? at $((SECONDS - t0)) s"
  ncu -i /tmp/${k}_512.ncu-rep --page details > $L/ncu_${k}_details.txt 2>&1
  ncu -i /tmp/${k}_512.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $L/ncu_${k}_sass.csv.gz
  grep -E "^    Duration|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per" $L/ncu_${k}_details.txt
done
