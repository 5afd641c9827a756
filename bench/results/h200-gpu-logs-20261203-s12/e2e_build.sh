#!/usr/bin/env bash
# Sourced by the e2e calls: on a warm machine, call 1's build-gpu brought up to date with this tree
# (incremental); on a fresh one, the D 64 bf16 kernels for 90a with the torch binding (the e2e models use
# D = 64).
if [[ ! -f build-gpu/build.ninja ]]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
    -DFLASHATTN_HEAD_DIMS=64 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON -DFLASHATTN_BUILD_TESTS=OFF \
    -DFLASHATTN_BUILD_TOOLS=OFF -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include > $OUT/logs/configure.log 2>&1
fi
cmake --build build-gpu -j "$(nproc)" --target flashattn_torch > $OUT/logs/build_torch.log 2>&1
echo "torch build rc=$? at $((SECONDS - t0)) s"
