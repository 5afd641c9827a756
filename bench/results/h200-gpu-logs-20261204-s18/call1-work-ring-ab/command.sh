#!/usr/bin/env bash
# Session 18 call 1 (fresh machine): A/B of the producer handing each tile to the consumers through shared
# memory (FwdWorkRingSm90) with the epilogue's lse / 1/sum on MUFU (working tree) against HEAD b5e0f5a, the
# forward grid (D 64 / 128 / 256, both masks, S 512-16k), two runs a side; the change's sm90 forward tests at
# the full tier while the base still builds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
AB_CHANGE_STEPS=build FLASHATTN_HEAD_DIMS="64;128;256" timeout 540 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1 &
ab=$!
while [[ ! -x build-gpu/tests/flashattn_tests_gpu ]] && kill -0 $ab 2>/dev/null; do sleep 5; done
while pgrep -f "cmake --build build-gpu" >/dev/null; do sleep 5; done
echo "change built at $((SECONDS - t0)) s"
FLASHATTN_GPU_TIER=full timeout 150 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm90*:CudaOffsets64Bit.Hopper*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests.log | head -20
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt
python3 -c "import json,sys; [print(f, r['D'], r['causal'], r['Sq'], r['verified'], r['max_abs_err']) for f in sys.argv[1:] for r in json.load(open(f))['rows'] if not r.get('verified')]" $L/ab/*.json
grep -E "spill" $L/ab/change/kernels.txt | sort | uniq -c
rm -rf $L/ab/change/build $L/ab/change/*.so $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
