#!/usr/bin/env bash
# Prepared in session 45 (not yet run; any 132-SM GPU, ~420 s): 83e0d2f, GQA query heads at D 128 in 2-CTA
# cluster pairs that load each K / V tile once for both (TMA multicast), as kernels of their own
# (FwdTileRegime::long_keys_paired / short_keys_paired); every other kernel's SASS is main's (nvdisasm, D 64
# and 128, label numbers aside). Calls 4-5 measured the same pairs in one kernel with the pairing a run-time
# flag: GQA-long 0.980, then 1.007 (B 8 4k +1.8%, 128k +1.2%, 8k / 16k +-0.1%) once the stage release was a
# predicated arrive, while the unpaired MHA cells of the shared kernels lost 0.3-3.3%; call 3's experiment
# (half the K / V loads skipped) bounds the pairs' gain at +2-4%. Predicted: GQA-long +1-2.5%; the D 128
# paper grid (unpaired, identical SASS) 1.000 +- noise. Keep if GQA-long's geometric mean >= 1.005 with no
# cell below 0.99, the paper grid within noise, tests, memcheck, racecheck and synccheck pass.
# Prepare on main: rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results'
#   git archive 83e0d2f -o .ab/pairs.tar -- . ':!bench/results'; echo 83e0d2f... > .ab/pairs.commit
#   (git rev-parse 83e0d2f); gzip .ab/*.tar; git rev-parse HEAD > .commit. Carry [".ab",
#   "third_party/cutlass", ".commit"]; run as scripts/device-in-tree pairs
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
    FLASHATTN_SANITIZER_FILTER='CudaForwardSm90.GqaQueryHeadPairsShareTheirKvLoads' \
    FLASHATTN_SANITIZER_TIMEOUT=$((left > 60 ? 55 : left - 5)) scripts/gpu "$L/$tool" | tail -2
done
echo "done at $((SECONDS - device_t0)) s"
