#!/usr/bin/env bash
# Session 15 call 4 (fresh machine; build-bin/ = b70cb00 built on the CPU machine; its forward kernels are
# main's): ncu of the sm90 forward at the two long-S headlines, to test the shared-memory count of the D 256
# 80-key tile (tile_fwd_sm90.hpp: 95% of the shared-memory pipe) and to see what bounds the D 128 128x144
# tile at S 16k (675 against the 680 target): D 256 full and D 128 full, B 1, S 16k, one launch each at the
# natural clock; the details page and the per-instruction stall samples.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
for cfg in "256 8" "128 16"; do
  set -- $cfg; d=$1; h=$2
  timeout 120 ncu --clock-control none --set full --import-source no -k regex:fwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_fwd_d$d \
    build-bin/flashattn bench --backend cuda --op fwd --batch 1 --heads $h --seqlen-q 16384 --head-dim $d --samples 2 \
    --warmup 1 --quiet > $L/ncu_fwd_d$d.log 2>&1
  echo "ncu d$d rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_fwd_d$d.ncu-rep --page details > $L/ncu_fwd_d${d}_details.txt 2>&1
  ncu -i $L/ncu_fwd_d$d.ncu-rep --page raw 2>/dev/null | grep -E "l1tex__data_pipe_lsu_wavefronts_mem_shared|l1tex__data_bank|smsp__pipe_tensor|sm__pipe_tensor|sm__inst_executed_pipe_uniform|l1tex__throughput|sm__cycles_elapsed.avg |smsp__cycles_active.avg |l1tex__data_pipe" > $L/ncu_fwd_d${d}_raw.txt
  ncu -i $L/ncu_fwd_d$d.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_fwd_d${d}_sass.csv.gz
  grep -E "Duration|SM Frequency|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per|Shared Memory Configuration Size" $L/ncu_fwd_d${d}_details.txt | head -12
  rm -f $L/ncu_fwd_d$d.ncu-rep
done
echo "done at $((SECONDS - t0)) s"
