#!/usr/bin/env bash
# Prepared in session 38 (not yet run; any GPU with 132 SMs): a test of the shared-memory port model of the
# D 128 backward step (docs/PERF.md, "Backward, session 38": ~370 KB of shared-memory traffic per 64 x 128
# step, ~2,900 cycles at 128 B / cycle, against ~2,560 cycles of tensor work, so the port and not the tensor
# cores would be the floor). ncu --set full of one launch each of the D 128 S 16k full backward and forward
# (the forward's step, by the same count, needs ~1,750 port cycles against 2,048 tensor cycles: tensor-bound)
# and of the D 64 backward, natural clock; every raw metric exported (--page raw --csv) so that the shared-
# memory data-bank and pipe utilisation can be read beside the tensor pipe's (l1tex__data_bank_*,
# l1tex__data_pipe_lsu_wavefronts_mem_shared*, sm__pipe_tensor_op_*, smsp__inst_executed_op_*), and the
# metric names this ncu offers (--query-metrics) for the ones not in the set. If the backward's shared-memory
# utilisation sits near its peak while the tensor pipe sits at ~70%, the port model holds and the levers are
# the step's shared-memory bytes (the dQ staging's 64 KB a step first); if not, the model is wrong.
# Prepare: scripts/build-for-device "64;128" bf16 (build-bin/); carry ["build-bin/flashattn"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 300).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
ncu --query-metrics > "$L/query_metrics.txt" 2>&1
grep -i -E "l1tex__data_bank|mem_shared|pipe_tensor|gmma" "$L/query_metrics.txt" | head -40
cells=("bwd128 bwd 128 16" "fwd128 fwd 128 16" "bwd64 bwd 64 32")
for cell in "${cells[@]}"; do
  read -r name op dim heads <<< "$cell"
  timeout 90 ncu --clock-control none --set full -k regex:"${op}_sm90" --launch-skip 1 -c 1 -o "$L/ncu_$name" \
    build-bin/flashattn bench --backend cuda --op "$op" --batch 1 --heads "$heads" --seqlen-q 16384 \
    --head-dim "$dim" --samples 2 --warmup 1 --quiet > "$L/ncu_$name.log" 2>&1
  echo "ncu $name rc=$? at $((SECONDS - device_t0)) s"
  ncu -i "$L/ncu_$name.ncu-rep" --page raw --csv 2>/dev/null | gzip > "$L/ncu_${name}_raw.csv.gz"
  ncu -i "$L/ncu_$name.ncu-rep" --page details > "$L/ncu_${name}_details.txt" 2>&1
  grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|L1/TEX Cache Throughput|highest-utilized" \
    "$L/ncu_${name}_details.txt" | head -6
done
rm -f "$L"/*.ncu-rep
echo "done at $((SECONDS - device_t0)) s"
