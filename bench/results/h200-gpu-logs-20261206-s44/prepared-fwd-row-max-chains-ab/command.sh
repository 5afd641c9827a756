#!/usr/bin/env bash
# Prepared in session 44 (not yet run; any 132-SM GPU, ~420 s): dbe2a2f, the sm90 forward's tile row maximum
# folded in 4 independent chains and a tree, against main. ptxas keeps the serial fold serial: today every
# tile's softmax starts with 34 dependent instructions (31 FMNMX a row at 32 columns, the quad shuffles, the
# new maximum), 12 with the change (nvdisasm of the D 128 kernels; the result is the same bit for bit, fmaxf
# being exact and order-free). In call 2's D 128 full S 512 profile the FMNMX chain held ~6.8% of the stall
# samples, mostly "wait" (fixed-latency dependency), and the wait for S before it 7.8%. Predicted: +0.5-3% where
# the softmax sits on the step's critical path (D 64 / 128, S <= 4k), within noise where the other
# warpgroup's GEMMs already cover it; D 256 (16-20 columns a row) less. 0 spills, no C75xx at D 64 / 128 / 256.
# Keep if the paper grid's geometric mean >= 1.005 with no cell below 0.99, and the tests and memcheck pass.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git worktree add -q --detach /tmp/wch HEAD && git -C /tmp/wch cherry-pick dbe2a2f &&
#     git -C /tmp/wch archive HEAD -o "$PWD/.ab/chains.tar" -- . ':!bench/results' &&
#     git -C /tmp/wch rev-parse HEAD > .ab/chains.commit && git worktree remove --force /tmp/wch
#   gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"]; run as
#   scripts/device-in-tree chains "$PWD/bench/results/h200-gpu-logs-20261206-s44/prepared-fwd-row-max-chains-ab/command.sh" 440
#   (or through dispatch.sh's mode chains).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op fwd; --op fwd --grid gqa-long --seqlens 8192,16384 --samples 10" \
  device_ab "$L/ab" 380
FLASHATTN_HEAD_DIMS="64;128;256" device_memcheck "$L/memcheck" 'CudaForwardSm90.SweepMatchesOracle' \
  $((430 - SECONDS + device_t0))
echo "done at $((SECONDS - device_t0)) s"
