#!/usr/bin/env bash
# Session 18 call 2 (fresh machine): A/B of the working tree (first fold without rescale; with one Q
# buffer, D 192 / 256, O stored from registers and Q handed back after the tile's last Q·Kᵀ) against 41ffb2e,
# the forward grid, two runs a side; every sm90 head dim built (64/96/128/192/256), the sm90 forward tests at
# the full tier while the base builds (D 96 and 192 for the first time since the V-box change), then
# compute-sanitizer memcheck, racecheck and synccheck on the sweep (quick tier).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
AB_CHANGE_STEPS=build FLASHATTN_HEAD_DIMS="64;96;128;192;256" timeout 420 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1 &
ab=$!
while [[ ! -x build-gpu/tests/flashattn_tests_gpu ]] && kill -0 $ab 2>/dev/null; do sleep 5; done
while pgrep -f "cmake --build build-gpu" >/dev/null; do sleep 5; done
echo "change built at $((SECONDS - t0)) s"
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 150 $T --gtest_filter='CudaForwardSm90*:CudaOffsets64Bit.Hopper*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests.log | head -20
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt
python3 -c "import json,sys; [print(f, r['D'], r['causal'], r['Sq'], r['verified'], r['max_abs_err']) for f in sys.argv[1:] for r in json.load(open(f))['rows'] if not r.get('verified')]" $L/ab/*.json
grep -B2 "spill" $L/ab/change/kernels.txt | grep -E "fwd_sm90|spill" | head -30
rm -rf $L/ab/change/build $L/ab/change/*.so $L/ab/change/build.log
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 80 compute-sanitizer --tool $tool --error-exitcode 1 $T \
    --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; tail -3 $L/$tool.log
done
echo "done at $((SECONDS - t0)) s"
