#!/usr/bin/env bash
# Session 45, call 4 (any 132-SM GPU, ~400 s): GQA query heads in 2-CTA cluster pairs sharing their K / V
# loads. The change (main at its commit, the working tree): where two query heads share a kv head (an even
# group, tiles not packed, O not staged in the rings: D 64 / 96 / 128 / 192), CTAs 2c and 2c + 1 form a
# cluster that takes a work item of the order over head pairs, one query head each; key tile n's K and V
# are loaded by the CTA of rank n % 2 by TMA multicast into both CTAs' stages, each stage's empty barrier
# counting both CTAs' consumer warpgroups. Call 3's experiment (half the K / V loads skipped) bounded the
# gain at +2-4% at D 128 (GQA-long 1.023, MHA cells 1.031). Predicted: GQA-long +1-3%; the MHA paper grid,
# which runs unpaired on the same kernels (a run-time cluster size of 1), 1.000 +- noise. Base: 8b5de29.
# Gate: CudaForwardSm90.* (with the new GqaQueryHeadPairsShareTheirKvLoads) at the quick tier, then
# memcheck of the new test and of the sweep; racecheck and synccheck of the new test.
# Prepare: rm -rf .ab && mkdir .ab && git archive HEAD~1 -o .ab/base.tar -- . ':!bench/results';
#   gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=200 \
  AB_PEERS_ARGS="--op fwd --grid gqa-long --samples 10; --op fwd" device_ab "$L/ab" 400
left=$((470 - SECONDS + device_t0))
FLASHATTN_HEAD_DIMS="64;128;256" device_memcheck "$L/memcheck" \
  'CudaForwardSm90.GqaQueryHeadPairsShareTheirKvLoads:CudaForwardSm90.SweepMatchesOracle' $((left > 60 ? 60 : left))
for tool in racecheck synccheck; do
  left=$((500 - SECONDS + device_t0))
  ((left > 30)) || break
  FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_FILTER='CudaForwardSm90.GqaQueryHeadPairsShareTheirKvLoads' \
    FLASHATTN_SANITIZER_TIMEOUT=$((left - 5)) scripts/gpu "$L/$tool" | tail -2
done
echo "done at $((SECONDS - device_t0)) s"
