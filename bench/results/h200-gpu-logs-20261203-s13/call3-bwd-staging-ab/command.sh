#!/usr/bin/env bash
# Session 13 call 3 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of this
# tree, built on the CPU machine): the sm90 backward with the dQ staging from one XOR-ed base address and
# immediate offsets, conflict-free (odd quad rows store group j ^ 2), steps walked without a division, the
# proxy fence after dK's wait, and longest first only up to 4 waves. First the sm90 backward tests (bf16 and fp16) and racecheck / memcheck on subsets (stops if
# they fail); then scripts/ab against 90b94d4 over the backward grid (D 128, 64, 256, full and causal, two
# interleaved runs each, cuDNN in a run of its own); the long-context GQA grid up to S 32k the same way; and,
# time permitting, ncu of the main kernel at D 128, S 16k and the durations of the backward's three kernels.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
FLASHATTN_GPU_TIER=quick timeout 120 $T --gtest_filter='CudaBackwardSm90.*' > $L/tests_bwd.log 2>&1
rc=$?; echo "bwd tests rc=$rc at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests_bwd.log | head -20
((rc == 0)) || exit 1
FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool racecheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys' > $L/racecheck_bwd.log 2>&1
echo "racecheck rc=$? at $((SECONDS - t0)) s"; tail -1 $L/racecheck_bwd.log
FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys:CudaBackwardSm90.VarlenCausalRowsWithoutKeys' > $L/memcheck_bwd.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -1 $L/memcheck_bwd.log
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 AB_CHANGE_STEPS=build AB_PEERS_ARGS="--op bwd --head-dims 128,64,256" \
  timeout $((500 - (SECONDS - t0))) scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
export PYTHONPATH=build-gpu/python
base_py=$(ls -d /tmp/tmp.*/base/build/python | head -1)
G="--op bwd --grid gqa-long --seqlens 4096,8192,16384,32768"
a=() b=()
for run in 1 2; do
  timeout 40 python3 bench/peers.py --impls flashattn --json $L/gqa_change_$run.json $G > $L/gqa_change_$run.log 2>&1 && a+=($L/gqa_change_$run.json)
  PYTHONPATH=$base_py FLASHATTN_COMMIT=90b94d4 timeout 40 python3 bench/peers.py --impls flashattn \
    --json $L/gqa_base_$run.json $G > $L/gqa_base_$run.log 2>&1 && b+=($L/gqa_base_$run.json)
done
timeout 40 python3 bench/peers.py --impls cudnn --json $L/gqa_cudnn.json $G > $L/gqa_cudnn.log 2>&1
python3 bench/ab_compare.py --a "${a[@]}" --b "${b[@]}" --peer cudnn --peer-runs $L/gqa_cudnn.json | tee $L/gqa_ab.txt
echo "gqa at $((SECONDS - t0)) s"
if ((SECONDS - t0 < 545)); then
  timeout 40 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $OUT/bwd128 \
    build-bin/flashattn bench --backend cuda --op bwd --batch 1 --heads 16 --seqlen-q 16384 --head-dim 128 \
    --samples 2 --warmup 1 --quiet > $L/ncu128.log 2>&1; echo "ncu rc=$? at $((SECONDS - t0)) s"
  ncu -i $OUT/bwd128.ncu-rep --page details > $L/ncu128_details.txt 2>&1
  ncu -i $OUT/bwd128.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $L/ncu128_sass.csv.gz
  grep -E "Duration|Compute \(SM\) Throughput|L1/TEX Cache Throughput|Issue Slots Busy" $L/ncu128_details.txt
fi
if ((SECONDS - t0 < 570)); then
  timeout 25 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:bwd_ \
    build-bin/flashattn bench --backend cuda --op bwd --batch 1 --heads 16 --seqlen-q 16384 --head-dim 128 \
    --samples 1 --warmup 1 --quiet > $L/ncu_times128.log 2>&1
  echo "ncu times rc=$? at $((SECONDS - t0)) s"; grep -E "bwd_|duration" $L/ncu_times128.log | tail -12
fi
