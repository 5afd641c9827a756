#!/usr/bin/env bash
# Session 15 call 1 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of the
# change, built on the CPU machine): two forward changes against d5f8d2c in one A/B, 2 ms host lead:
#   - sm90 D 256: the 128x80 tile (2 K + 2 V stages) instead of 128x64 (2 K + 3 V), D 256 grid, cuDNN after;
#   - sm80 D 128 long tile: bulk tiles visited last, D 128 portable grid, FlashAttention-2 after.
# While the A/B's builds run, the GPU runs the change's forward tests (sm80 and sm90, full tier for D 256)
# and memcheck on them.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="128;256" AB_RUNS=2 AB_CHANGE_STEPS=build \
  AB_PEERS_ARGS="--head-dims 256" timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1 &
ab=$!
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
FLASHATTN_GPU_TIER=full timeout 120 $T --gtest_filter='CudaForwardSm90.*:CudaForwardSm80.*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests.log | head -30
FLASHATTN_GPU_TIER=quick timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaForwardSm90.*:CudaForwardSm80.*' > $L/memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -n 2 $L/memcheck.log
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
B=$(ls -d /tmp/tmp.*/base/build/python | head -1); F="--head-dims 128 --path portable"
for r in 1 2; do
  ((SECONDS - t0 < 480)) || break
  PYTHONPATH=build-gpu/python timeout 40 python3 bench/peers.py --impls flashattn $F --json $L/p_change_$r.json > $L/p_change_$r.log 2>&1
  PYTHONPATH=$B FLASHATTN_COMMIT=d5f8d2c timeout 40 python3 bench/peers.py --impls flashattn $F --json $L/p_base_$r.json > $L/p_base_$r.log 2>&1
done
PYTHONPATH=build-gpu/python timeout 40 python3 bench/peers.py --impls fa2 $F --json $L/p_fa2.json > $L/p_fa2.log 2>&1
python3 bench/ab_compare.py --a $L/p_change_*.json --b $L/p_base_*.json --peer fa2 --peer-runs $L/p_fa2.json | tee $L/p_ab.txt
echo "done at $((SECONDS - t0)) s"
