#!/usr/bin/env bash
# Session 46, call 3 (any 132-SM GPU, ~420 s): what the backward's L2 traffic costs it at D 128, as session
# 45's call 3 measured the forward's K / V loads. Two experiments (results wrong, same instructions), against
# main with session 46's pairs (57e5328's parent): A = 57e5328, every odd step's Q and dO not loaded
# once the ring is full (the stage barrier's bytes completed by hand), halving their L2 -> SM traffic;
# c1 = 82195f1, that and every odd step's dQ reduce-add skipped. They bound what a 2-CTA cluster pair of
# neighbouring key blocks could gain by multicasting Q / dO (A) and by summing the pair's dQ in shared memory
# before one reduce-add (c1). Predicted: A +1-3% in the D 128 full cells (the target needs +2-3%), c1 a
# further +1-3%; GQA-long (causal) alike. No tests (wrong results by design).
# Prepare on main: rm -rf .ab && mkdir .ab && git archive 57e5328~1 -o .ab/base.tar -- . ':!bench/results'
#   git archive 57e5328 -o .ab/e1.tar -- . ':!bench/results'; git rev-parse 57e5328 > .ab/e1.commit
#   git archive 82195f1 -o .ab/e2.tar -- . ':!bench/results'; gzip .ab/*.tar; git rev-parse HEAD > .commit
#   Carry [".ab", "third_party/cutlass", ".commit"]; run as scripts/device-in-tree e1
#   "$PWD/bench/results/h200-gpu-logs-20261206-s46/call3-bwd-qdo-dq-half-traffic-bound/command.sh" 480
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 AB_TESTS_GATE=0 \
  AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10; --op bwd --grid gqa-long --seqlens 4096,8192,32768 --samples 10; --op bwd --head-dims 128 --masks causal --seqlens 2048,16384 --samples 10" \
  device_ab "$L/ab" 450 .ab/e2.tar
for f in "$L"/ab/*_g1_1.json; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(sys.argv[1].split("/")[-1], r["B"], r["Sk"], round(r.get("tflops") or 0), r.get("verified"), (r.get("clocks") or {}).get("sm_mhz_median"), (r.get("clocks") or {}).get("power_capped_share")) for r in d["rows"]]' "$f"
done
echo "done at $((SECONDS - device_t0)) s"
