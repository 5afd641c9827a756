#!/usr/bin/env bash
# Session 45, call 3 (any 132-SM GPU, ~300 s): what halving the sm90 forward's K / V traffic from L2 to the
# SMs is worth, before building a 2-CTA cluster that multicasts K / V (two query heads of one kv head, or two
# query tiles of one head, sharing each load). The change (5134547, reverted after this call) skips the TMA load
# of every odd key tile's K and V (the stage keeps an earlier tile's data and the producer completes the
# barrier's bytes itself): the same instructions and FLOPs, half the K / V bytes, wrong results (so no tests
# and no verification; the rows read verified false). Base: main (bb51cdc's tree). Session 43 found the
# long-context GQA cells power-capped from 32k (1425 MHz at 128k), so this asks whether the K / V operand
# traffic's energy or bandwidth is worth the cluster: the change's clock and TFLOP/s per cell, and the D 128
# MHA cells at 2k / 16k beside them. Predicted: 0-2% where not power-capped; if the L2 -> SM traffic is a
# real share of the power, +3-8% at 32k-128k. Under ~2% everywhere: multicast is not worth building.
# Prepare: rm -rf .ab && mkdir .ab && git archive 5134547~1 -o .ab/base.tar -- . ':!bench/results'; gzip .ab/*.tar;
#   git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=16 AB_TESTS_GATE=0 \
  AB_PEERS_ARGS="--op fwd --grid gqa-long --samples 10; --op fwd --head-dims 128 --seqlens 2048,16384" \
  device_ab "$L/ab" 320
for f in "$L"/ab/*_g0_1.json; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(sys.argv[1].split("/")[-1], r["B"], r["Sk"], round(r.get("tflops") or 0), r.get("verified"), (r.get("clocks") or {}).get("sm_mhz_median"), (r.get("clocks") or {}).get("power_capped_share")) for r in d["rows"]]' "$f"
done
echo "done at $((SECONDS - device_t0)) s"
