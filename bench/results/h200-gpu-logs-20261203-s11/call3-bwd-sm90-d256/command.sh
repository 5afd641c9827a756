#!/usr/bin/env bash
# Session 11 call 3 (about 370 s of device time left): the first GPU run of the sm90 backward with the head
# dim split between the consumer warpgroups (D = 256, FLASHATTN_COMMIT), D 256 bf16 kernels for 90a with
# the torch binding: the sm90 backward tests (quick tier), the backward grid at D 256 against cuDNN and
# FlashAttention-2 (same process), then memcheck and racecheck on the edge subsets as far as time allows.
set -uo pipefail
export FLASHATTN_COMMIT=bee4162
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
(cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
  -DFLASHATTN_HEAD_DIMS=256 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON \
  -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include &&
  cmake --build build-gpu -j "$(nproc)" --target flashattn_tests_gpu flashattn_torch) > $L/build.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; grep -E "error|bwd_sm90" $L/build.log | head -5
T=build-gpu/tests/flashattn_tests_gpu
FLASHATTN_GPU_TIER=quick timeout 90 $T --gtest_filter='CudaBackwardSm90.*' > $L/tests_bwd90.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|error|tests ran" $L/tests_bwd90.log | head -12
PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 timeout 100 python3 bench/peers.py --op bwd --head-dims 256 \
  --impls flashattn,cudnn,fa2 --json $OUT/peers_bwd_d256.json > $L/peers_bwd_d256.log 2>&1
echo "peers rc=$? at $((SECONDS - t0)) s"; tail -16 $L/peers_bwd_d256.log
FLASHATTN_GPU_TIER=quick timeout 45 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.LengthsOffTileMultiples:CudaBackwardSm90.VarlenUnusedKeys' > $L/memcheck.log 2>&1
echo "memcheck rc=$?"; tail -1 $L/memcheck.log
FLASHATTN_GPU_TIER=quick timeout 35 compute-sanitizer --tool racecheck --error-exitcode 1 $T \
  --gtest_filter='CudaBackwardSm90.VarlenUnusedKeys' > $L/racecheck.log 2>&1; echo "racecheck rc=$?"; tail -1 $L/racecheck.log
