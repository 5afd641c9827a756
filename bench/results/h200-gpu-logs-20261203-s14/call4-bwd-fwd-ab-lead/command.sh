#!/usr/bin/env bash
# Session 14 call 4 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of c4e3fe8,
# built on the CPU machine): both changes of this session against 8e50d1d in one A/B, timed with a 2 ms host
# lead (peers.py --host-lead-us 2000: kernel time, not the host's time to enqueue a call): the backward's
# staged dK / dV epilogue over the backward grid, then the D 128 forward's 128x144 tile (full masks from 8k
# keys) over the D 128 forward grid, two interleaved runs a side, cuDNN after each. While the A/B's builds
# run, the GPU runs the change's tests: the sm90 forward (the wide tile's new test among them) and the
# backward tests call 3 did not reach, and memcheck on the wide tile's test.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="64;128;256" AB_RUNS=2 AB_CHANGE_STEPS=build \
  AB_PEERS_ARGS="--op bwd --head-dims 128,64,256 --host-lead-us 2000" \
  timeout 380 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1 &
ab=$!
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
FLASHATTN_GPU_TIER=quick timeout 90 $T --gtest_filter='CudaForwardSm90.*:CudaBackwardSm90.ABatch*:CudaBackwardSm90.CallerWorkspace:CudaOffsets64Bit.*Backward*' \
  > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|^\[       OK" $L/tests.log | head -30
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaForwardSm90.HeadDim128Tile*' > $L/memcheck_wide.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -n 1 $L/memcheck_wide.log
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
B=$(ls -d /tmp/tmp.*/base/build/python | head -1); F="--head-dims 128 --host-lead-us 2000"
for r in 1 2; do
  ((SECONDS - t0 < 500)) || break
  PYTHONPATH=build-gpu/python timeout 30 python3 bench/peers.py --impls flashattn $F --json $L/fwd_change_$r.json > $L/fwd_change_$r.log 2>&1
  PYTHONPATH=$B FLASHATTN_COMMIT=8e50d1d timeout 30 python3 bench/peers.py --impls flashattn $F --json $L/fwd_base_$r.json > $L/fwd_base_$r.log 2>&1
done
PYTHONPATH=build-gpu/python timeout 30 python3 bench/peers.py --impls cudnn $F --json $L/fwd_cudnn.json > $L/fwd_cudnn.log 2>&1
python3 bench/ab_compare.py --a $L/fwd_change_*.json --b $L/fwd_base_*.json --peer cudnn --peer-runs $L/fwd_cudnn.json | tee $L/fwd_ab.txt
echo "done at $((SECONDS - t0)) s"
