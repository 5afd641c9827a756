#!/usr/bin/env bash
# Session 50, call 1. On an H200 (~510 s): session 47's evidence grids (call 8 of session 49 as prepared). On
# any other GPU (~300 s): session 49's call 8 H100 branch (our combine and cuDNN's reduction under ncu with the
# split partials left in L2; B 1 L 1k at the cluster path's split counts), then session 49's call 11 (what the
# forward's partial last round of full-mask tiles costs), one call so that one machine start serves both.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 560).
set -uo pipefail
S49=bench/results/h200-gpu-logs-20261206-s49
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash "$S49/call8-next-evidence-or-combine-warm/command.sh"
fi
bash "$S49/call8-next-evidence-or-combine-warm/command.sh"
mv "$OUT/logs" "$OUT/logs-combine" && rm -rf build-gpu
bash "$S49/call11-prepared-fwd-tail-bound/command.sh"
mv "$OUT/logs-combine" "$OUT/logs/combine"
