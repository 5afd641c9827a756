#!/usr/bin/env bash
# Session 17 call 3 (fresh machine): A/B of V's shared-memory layout stacked along the keys (one TMA box per
# 64-column slab; HEAD) against c6d1124 (1 KB boxes), the forward grid, two runs a side, with the sm90
# forward tests of the change (every head dim built: the layout changes every kernel); the sequential_d256
# ablation built on the change and timed on the D 256 grid twice (against the change's A runs).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
ABLATION_HEAD_DIM=256 ABLATION_STEPS=build timeout 400 scripts/ablation $L/abl sequential_d256 > $L/ablation_build.log 2>&1 &
abl=$!
AB_CHANGE_STEPS=build FLASHATTN_HEAD_DIMS="64;128;256" timeout 560 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1 &
ab=$!
# The tests start once the change's build is there (scripts/ab times after both builds; the tests' GPU use
# overlaps the base build only).
while [[ ! -x build-gpu/tests/flashattn_tests_gpu ]] && kill -0 $ab 2>/dev/null; do sleep 5; done
while pgrep -f "cmake --build build-gpu" >/dev/null; do sleep 5; done
echo "change built at $((SECONDS - t0)) s"
FLASHATTN_GPU_TIER=full timeout 150 build-gpu/tests/flashattn_tests_gpu --gtest_filter='CudaForwardSm90*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure" $L/tests.log | head -20
wait $ab; echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt
grep -E "spill" $L/ab/change/kernels.txt | sort | uniq -c
wait $abl; echo "ablation build rc=$? at $((SECONDS - t0)) s"; grep -h -A2 "fwd_sm90" $L/abl/build_*.log | grep -E "spill" | sort | uniq -c
for r in 1 2; do
  PYTHONPATH=build-ablation/sequential_d256/python timeout 60 python3 bench/peers.py --impls flashattn --head-dims 256 \
    --json $L/abl/sequential_d256_$r.json > $L/abl/sequential_d256_$r.log 2>&1
  echo "== sequential_d256 run $r rc=$? at $((SECONDS - t0)) s"
done
python3 -c "import json,sys; [print(f, r['D'], r['causal'], r['Sq'], r['verified'], r['max_abs_err']) for f in sys.argv[1:] for r in json.load(open(f))['rows'] if not r.get('verified')]" $L/abl/*.json $L/ab/*.json
python3 bench/ab_compare.py --a $L/abl/sequential_d256_*.json --b $L/ab/change_*.json | tee $L/abl/ab.txt
rm -rf $L/ab/change/build $L/ab/change/*.so
echo "done at $((SECONDS - t0)) s"
