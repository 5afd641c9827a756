#!/usr/bin/env bash
# Ran in session 52, as it stands: its logs are ../../h200-gpu-logs-20261206-s52/call3-fwd-paired-tail-gated-ab/.
# Session 50, call 3: the paired order's partial last round pair dealt as single tiles, now only where that
# shortens the largest CTA share (the working tree) against main before it (.ab/base.tar.gz). Call 2 measured
# the ungated form (4a50825): +0.1-2.4% in the cells whose share it shortens, 0.973 at D 256 S 512, where the
# share stays 20 key tiles and the gate now keeps whole pairs. Predicted: D 256 S 512 at 1.000, the other
# cells as in call 2. Prepare: .ab/base.tar.gz from the main before the gate (git archive 257cd06^ -o
# .ab/base.tar -- . ':!bench/results', gzip; main itself is the working tree); git rev-parse HEAD > .commit;
# carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit
# 280). Cut to D 128 / 256 and no tests for the session's last ~370 s of device time: the gate is host code
# (the CPU tests check its decisions), the kernels are call 2's, whose CudaForwardSm90.* passed, and the D 64
# cells take the same order as in call 2.
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 \
  AB_PEERS_ARGS="--op fwd --head-dims 128,256 --masks causal --seqlens 512,1024,2048" device_ab "$L/ab" 265
echo "done at $((SECONDS - device_t0)) s"
