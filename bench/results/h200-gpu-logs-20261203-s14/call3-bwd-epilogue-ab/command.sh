#!/usr/bin/env bash
# Session 14 call 3 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of dd16ed9,
# built on the CPU machine): the sm90 backward with dK / dV staged in shared memory and written in 16-byte row
# vectors. Started together: scripts/ab against 8e50d1d over the backward grid (two interleaved runs a side,
# cuDNN after them) and the D 128 forward key-tile ablation builds (call 1's variants had failed to compile),
# whose builds run while the GPU runs the change's tests (bf16 and fp16, quick tier) and memcheck / racecheck
# on subsets. After the A/B: the ablation variants timed, the backward at D 128 timed with and without a host
# lead (peers.py --host-lead-us), the three backward kernels' durations at B 32, S 512, and call 1's two ncu
# reports (sm80 forward and FlashAttention-2, D 128, S 512) printed to text.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz  # carried compressed (the device call takes at most 64 MiB)
V="none block_n_176 block_n_144 block_n_144_q2"
for v in $V; do
  (cmake -S . -B /tmp/abl/$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
    -DFLASHATTN_HEAD_DIMS=128 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON -DFLASHATTN_BUILD_TESTS=OFF \
    -DFLASHATTN_BUILD_TOOLS=OFF -DFLASHATTN_SM90_ABLATION=$v -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include \
    > $L/abl_cfg_$v.log 2>&1 && nice -n 19 cmake --build /tmp/abl/$v -j 2 --target flashattn_torch > $L/abl_build_$v.log 2>&1) &
done
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 AB_CHANGE_STEPS=build AB_PEERS_ARGS="--op bwd --head-dims 128,64,256" \
  timeout 440 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1 &
ab=$!
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
FLASHATTN_GPU_TIER=quick timeout 100 $T --gtest_filter='CudaBackwardSm90.*:CudaOffsets64Bit.*Backward*' > $L/tests_bwd.log 2>&1
echo "bwd tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests_bwd.log | head -20
FLASHATTN_GPU_TIER=quick timeout 30 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys:CudaBackwardSm90.VarlenCausalRowsWithoutKeys' > $L/memcheck_bwd.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -n 1 $L/memcheck_bwd.log
FLASHATTN_GPU_TIER=quick timeout 30 compute-sanitizer --tool racecheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys' > $L/racecheck_bwd.log 2>&1
echo "racecheck rc=$? at $((SECONDS - t0)) s"; tail -n 1 $L/racecheck_bwd.log
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
wait; echo "ablation builds done at $((SECONDS - t0)) s"; tail -qn 1 $L/abl_build_*.log
for v in $V; do
  ((SECONDS - t0 < 530)) || break
  PYTHONPATH=/tmp/abl/$v/python timeout 30 python3 bench/peers.py --impls flashattn --head-dims 128 \
    --json $L/abl_$v.json > $L/abl_$v.log 2>&1; echo "ablation $v rc=$? at $((SECONDS - t0)) s"
done
for v in block_n_176 block_n_144 block_n_144_q2; do
  python3 bench/ab_compare.py --a $L/abl_$v.json --b $L/abl_none.json | tee $L/abl_$v.txt
done
H="--op bwd --head-dims 128 --seqlens 512,2048,16384 --masks full --impls flashattn,cudnn"
for lead in 0 2000; do
  ((SECONDS - t0 < 555)) || break
  PYTHONPATH=build-gpu/python timeout 25 python3 bench/peers.py $H --host-lead-us $lead --json $L/lead_$lead.json \
    > $L/lead_$lead.log 2>&1; echo "lead $lead rc=$? at $((SECONDS - t0)) s"; grep -A4 "^D " $L/lead_$lead.log
done
timeout 10 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:bwd_ build-bin/flashattn bench --backend cuda \
  --op bwd --batch 32 --heads 16 --seqlen-q 512 --head-dim 128 --samples 1 --warmup 1 --quiet > $L/bwd_times.log 2>&1
grep -E "duration" $L/bwd_times.log | tail -3
for r in sm80_512 fa2_512; do
  ncu -i .ab/$r.ncu-rep --page details > $L/ncu_${r}_details.txt 2>&1
  ncu -i .ab/$r.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $L/ncu_${r}_sass.csv.gz
done
echo "done at $((SECONDS - t0)) s"
