#!/usr/bin/env bash
# Session 38, call 6 (H100, the device command line as run; build-bin/flashattn carried, the CLI of
# scripts/build-for-device "64;128" bf16 at 693735a): call 3's clock sampling with longer runs, forward 200
# samples and backward 80 (call 3's 30 each left the forward's run too short to tell).
L=$OUT/logs; mkdir -p $L; for op in fwd bwd; do n=$([ $op = fwd ] && echo 200 || echo 80); nvidia-smi --query-gpu=timestamp,clocks.sm,clocks_event_reasons.active,power.draw --format=csv -lms 50 > $L/power_long_$op.csv & s=$!; sleep 0.5; build-bin/flashattn bench --backend cuda --op $op --batch 1 --heads 16 --seqlen-q 16384 --head-dim 128 --samples $n --warmup 5 > $L/time_long_$op.log 2>&1; sleep 0.3; kill $s; tail -n 3 $L/time_long_$op.log | head -1; awk -F', ' 'NR>1 {c[$3]++; if ($2+0 < 1980) low++} END {for (k in c) print k, c[k]; print "samples below 1980 MHz:", low+0}' $L/power_long_$op.csv; done; cp -r $L $OUT/ 2>/dev/null; ls $L
