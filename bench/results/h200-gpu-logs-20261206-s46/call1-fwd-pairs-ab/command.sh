#!/usr/bin/env bash
# Prepared in session 45 (not yet run; any 132-SM GPU, ~420 s): 41f30f9, K / V loads shared by 2-CTA cluster
# pairs at D 128 (TMA multicast: key tile n loaded by the CTA of rank n % 2 into both CTAs' stages), as
# kernels of their own (FwdTileRegime::long_keys_paired / short_keys_paired); a pair splits two query heads
# of one kv head (GQA, an even group) or else two neighbouring query tiles of one head under a full mask
# (an even tile count, not varlen). Every other kernel's SASS is main's (nvdisasm, D 64 and 128, label
# numbers aside). Calls 4-5 measured the head pairs in one kernel with the pairing a run-time flag:
# GQA-long 0.980, then 1.007 once the stage release was a predicated arrive, while the unpaired MHA cells of
# the shared kernels lost 0.3-3.3%; call 3's experiment (half the K / V loads skipped) bounds the gain at
# +1.4-4% (full 2k / 16k +1.4 / +4.0%). Predicted: GQA-long +1-2.5%, D 128 full cells (query-tile pairs)
# +1-3% (16k most), D 128 causal cells (unpaired, main's SASS) 1.000 +- noise. Keep if GQA-long's and the
# full cells' geometric means >= 1.005 with no cell below 0.99, the causal cells within noise, and tests,
# memcheck, racecheck and synccheck pass.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git archive 41f30f9 -o .ab/pairs.tar -- . ':!bench/results'; git rev-parse 41f30f9 > .ab/pairs.commit
#   gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab", "third_party/cutlass", ".commit"]; run as
#   scripts/device-in-tree pairs
#   "$PWD/bench/results/h200-gpu-logs-20261206-s45/prepared-fwd-gqa-pairs-ab/command.sh" 440 (or through
#   this folder's dispatch.sh, mode pairs).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_TESTS='CudaForwardSm90.*' \
  AB_TESTS_TIMEOUT=200 \
  AB_PEERS_ARGS="--op fwd --grid gqa-long --samples 10; --op fwd --head-dims 128" device_ab "$L/ab" 330
for tool in memcheck racecheck synccheck; do
  left=$((430 - SECONDS + device_t0))
  ((left > 30)) || break
  FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_GPU_STEPS=$tool \
    FLASHATTN_SANITIZER_FILTER='CudaForwardSm90.GqaQueryHeadPairsShareTheirKvLoads:CudaForwardSm90.FullMaskQueryTilePairsShareTheirKvLoads' \
    FLASHATTN_SANITIZER_TIMEOUT=$((left > 60 ? 55 : left - 5)) scripts/gpu "$L/$tool" | tail -2
done
echo "done at $((SECONDS - device_t0)) s"
