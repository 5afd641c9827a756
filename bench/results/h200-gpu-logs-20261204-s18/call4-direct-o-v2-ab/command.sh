#!/usr/bin/env bash
# Session 18 call 4 (fresh machine): A/B of the working tree (one Q buffer, D 192 / 256: Q handed back after the
# tile's last Q·Kᵀ, O stored from registers, one address per row and immediate offsets) against HEAD 4ef6f04,
# D 256 grid, two runs a side; the sm90 forward tests of D 192 / 256 at the full tier while the base builds,
# then memcheck of the sweep (quick tier): the epilogue now writes global memory straight from registers.
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
FLASHATTN_GPU_TIER=quick timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaForwardSm90.SweepMatchesOracle' > $L/memcheck.log 2>&1
echo "memcheck rc=$? at $((SECONDS - t0)) s"; tail -3 $L/memcheck.log
echo "done at $((SECONDS - t0)) s"
