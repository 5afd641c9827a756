#!/usr/bin/env bash
# Prepared in session 37 (not yet run; H200 only): both of this session's prepared diagnostics in one call,
# so that one H200 start serves them: ../prepared-decode-order/command.sh (decode timing order, B 1 L 32k
# profile; ~200 s with its build) and then ../prepared-bwd-gqa-long-profile/command.sh (ncu of the backward
# at GQA 16k / 32k and MHA 16k; its build adds the backward kernel to the first one's, ~250 s). Each part
# writes its logs under $OUT/<part>/logs; this packs them into $OUT/logs.tgz.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run as
#   bash bench/results/h200-gpu-logs-20261205-s37/prepared-h200-diagnostics/command.sh (device limit 590).
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
[[ $gpu == *H200* ]] || { echo "not an H200 ($gpu): nothing run"; exit 0; }
here=$(dirname "$0")
root=$OUT
OUT=$root/decode timeout 260 bash "$here/../prepared-decode-order/command.sh"; echo "decode part rc=$?"
OUT=$root/bwd timeout 300 bash "$here/../prepared-bwd-gqa-long-profile/command.sh"; echo "bwd part rc=$?"
cd "$root" && tar czf logs.tgz decode bwd && rm -rf decode bwd
ls "$root"
