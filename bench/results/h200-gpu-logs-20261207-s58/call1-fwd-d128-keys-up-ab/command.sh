#!/usr/bin/env bash
# Prepared in session 57 (not run; ~330 s on a fresh machine: two builds of one TU each with the torch
# binding, the D 128 tests while the base builds, 16 cells, three runs a side). The machine decides: on an
# H200, issues 4-6's evidence grids on main (../../h200-gpu-logs-20261206-s47/call3-evidence-grids/
# command.sh, main's src and tests restored from .ab/base.tar.gz over the change's); on any other GPU, this A/B.
# The change, 0beb352: D 128's short-key tile (causal at every length, full below 8k keys; also the GQA
# pairs' short_keys_paired) walks its key tiles up from n_begin, a compile-time direction
# (FwdTileSm90::keys_up). Session 57's calls 5-6 measured the walk up with a run-time direction in every
# head dim's kernels: D 128 causal 1k / 2k 1.024 / 1.014, while the full-mask controls, whose walk did not
# change, read 0.983 / 0.978 (the run-time loop's own cost). Compiled here: 0 spills, no C75xx; D 128's
# other kernels' SASS unchanged in instruction count; the short-key loop 1,870 instructions against 1,805
# (its mask path). CPU tests pass.
# Predicted: D 128 causal S 512 +1-2%, 1k +3-4%, 2k +2-3.5%, 4k 0-1%, 16k and GQA-long within 1%; full
# S 512-4k within 1%.
# Keep it if the causal S 512-2k geomean reads >= 1.015, no cell reads below 0.99, and the tests pass (an lse
# bound exceeded as in call 5 is a failure: the rule decides, not the size of the excess).
# Prepare:
# - The working tree: main + git diff 0beb352~1 0beb352 (git apply; restore after: git checkout HEAD -- src).
# - .ab/base.tar.gz: git archive HEAD -o .ab/base.tar -- . ':!bench/results'; gzip.
# - .ab/cutlass.tgz: tar czf .ab/cutlass.tgz -C third_party/cutlass include.
# - git rev-parse HEAD > .commit; carry [".ab", ".commit"]; run through
#   ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
source scripts/device-call-lib.sh
device_evidence_on_h200
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90" AB_RUNS=3 AB_TREE_JOBS=8 AB_TESTS_TIMEOUT=200 \
  AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--op fwd --head-dims 128 --seqlens 512,1024,2048,4096; --op fwd --head-dims 128 --masks causal --seqlens 16384; --op fwd --grid gqa-long --seqlens 4096,16384,65536" \
  device_ab "$L/ab" 390
echo "done at $((SECONDS - device_t0)) s"
