#!/usr/bin/env bash
# Session 18 call 5 (fresh machine): A/B of the working tree (D 256, one Q buffer: Q handed back after the
# tile's last Q·Kᵀ, O staged in the stages of its last K and V tiles, held from the producer) against 4ef6f04,
# D 256 grid, two runs a side; the sm90 forward tests of D 192 / 256 at the full tier while the base builds,
# then memcheck, racecheck and synccheck of the sweep (quick tier): a new hand-over of ring stages.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
AB_CHANGE_STEPS=build FLASHATTN_HEAD_DIMS="192;256" AB_PEERS_ARGS="--head-dims 256" timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1 &
ab=$!
while [[ ! -x build-gpu/tests/flashattn_tests_gpu ]] && kill -0 $ab 2>/dev/null; do sleep 5; done
while pgrep -f "cmake --build build-gpu" >/dev/null; do sleep 5; done
echo "change built at $((SECONDS - t0)) s"
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=full timeout 120 $T --gtest_filter='CudaForwardSm90*:CudaOffsets64Bit.Hopper*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests.log | head -20
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt
python3 -c "import json,sys; [print(f, r['D'], r['causal'], r['Sq'], r['verified'], r['max_abs_err']) for f in sys.argv[1:] for r in json.load(open(f))['rows'] if not r.get('verified')]" $L/ab/*.json
rm -rf $L/ab/change/build $L/ab/change/*.so $L/ab/change/build.log
for tool in memcheck racecheck synccheck; do
  FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $T \
    --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/$tool.log 2>&1
  echo "$tool rc=$? at $((SECONDS - t0)) s"; tail -3 $L/$tool.log
done
echo "done at $((SECONDS - t0)) s"
