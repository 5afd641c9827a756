#!/usr/bin/env bash
# Prepared in session 46 (not yet run; any 132-SM GPU, ~360 s): f996a82, the backward's key blocks 2p and
# 2p + 1 at D 128 as 2-CTA clusters that sum each step's dQ in shared memory (one bulk copy of a block across
# the pair, the owner's writer sums, one TMA reduce-add) where each CTA reduce-added its own, under a full
# mask with an even count of key blocks (core::bwd_pairs_key_blocks_sm90), against main. Call 5 ran its
# first form (5471f3a): "unspecified launch failure", synccheck "missing wait" at the consumers' Q / dO
# release, which PipelineTmaAsync of one CTA sends to cluster rank 0; f996a82 releases at the CTA's own
# barrier (BwdPairQdoPipeline). Every unpaired kernel's SASS is main's (nvdisasm, D 128 bf16, names aside);
# the paired kernel's consumers have no local memory in their step loop. Call 3 bounded halving the dQ
# reduce-adds (with Q / dO) at 1.020-1.052 in the D 128 full cells, 1.008 for Q / dO alone. Predicted: D 128
# full +0.5-2%. Keep if the full cells' geometric mean >= 1.005 with no cell below 0.99, and the tests
# (CudaBackwardSm90.* with KeyBlockPairsSumTheirDq), memcheck, synccheck and racecheck pass.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git archive f996a82 -o .ab/pairs.tar -- . ':!bench/results'; git rev-parse f996a82 > .ab/pairs.commit
#   gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"]; run as
#   scripts/device-in-tree pairs "$PWD/bench/results/h200-gpu-logs-20261206-s46/prepared-bwd-key-block-pairs-ab/command.sh" 420
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaBackwardSm90.*' \
  AB_TESTS_TIMEOUT=150 AB_PEERS_ARGS="--op bwd --head-dims 128 --masks full --samples 10" device_ab "$L/ab" 300
for tool in memcheck synccheck racecheck; do
  left=$((410 - SECONDS + device_t0))
  ((left > 30)) || break
  FLASHATTN_HEAD_DIMS="128" FLASHATTN_GPU_STEPS=$tool FLASHATTN_SANITIZER_FILTER='CudaBackwardSm90.KeyBlockPairsSumTheirDq' \
    FLASHATTN_SANITIZER_TIMEOUT=$((left > 60 ? 55 : left - 5)) scripts/gpu "$L/$tool" | tail -2
done
echo "done at $((SECONDS - device_t0)) s"
