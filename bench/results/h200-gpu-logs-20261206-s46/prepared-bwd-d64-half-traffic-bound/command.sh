#!/usr/bin/env bash
# Prepared in session 46 (its start failed, not run; any 132-SM GPU, ~300 s): call 3's two experiments at D 64 (the same tarballs), to see
# whether a backward cluster pair would reach the D 64 full cells too (1.005-1.031x cuDNN on the H200; the
# target 1.05x). A = 57e5328 (every odd step's Q and dO not loaded once the ring is full), c1 = 82195f1 (that
# and every odd step's dQ reduce-add skipped), against main with session 46's pairs (57e5328's parent).
# Results wrong by design, no tests. Predicted: like D 128 (call 3: full 1.008 / 1.029, causal 1.009 /
# 1.025), the D 64 tile moving the same bytes per FLOP (BLOCK_N 128).
# Prepare on main: as call 3 (.ab/base, e1, e2 tarballs, .ab/e1.commit); run as scripts/device-in-tree e1
#   "$PWD/bench/results/h200-gpu-logs-20261206-s46/prepared-bwd-d64-half-traffic-bound/command.sh" 330
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 AB_TESTS_GATE=0 \
  AB_PEERS_ARGS="--op bwd --head-dims 64 --masks full --samples 10; --op bwd --head-dims 64 --masks causal --seqlens 2048,16384 --samples 10" \
  device_ab "$L/ab" 300 .ab/e2.tar
for f in "$L"/ab/*_g0_1.json; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(sys.argv[1].split("/")[-1], r["B"], r["Sk"], round(r.get("tflops") or 0), r.get("verified"), (r.get("clocks") or {}).get("sm_mhz_median"), (r.get("clocks") or {}).get("power_capped_share")) for r in d["rows"]]' "$f"
done
echo "done at $((SECONDS - device_t0)) s"
