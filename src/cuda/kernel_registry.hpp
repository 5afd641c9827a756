// flashattn — the CUDA kernels built into this library, as the generated registry
// (src/cuda/generate_instantiations.py -> kernel_registry_cuda.cpp) lists them. Host-only: included by
// core/kernel_table.cpp in CUDA builds.
#pragma once

#include "core/dispatch.hpp"

namespace flashattn::cuda {

/// The launcher of a built CUDA forward kernel, or null when `key` is not built.
core::ForwardLauncher find_forward_launcher(const core::KernelKey& key);

/// Dynamic shared memory per block of a built CUDA kernel (the find_*_smem_bytes of its op), or null when
/// `key` is not built.
core::SmemBytes find_forward_smem_bytes(const core::KernelKey& key);
core::SmemBytes find_backward_smem_bytes(const core::KernelKey& key);
core::SmemBytes find_kvcache_smem_bytes(const core::KernelKey& key);

/// How many CUDA forward kernels were instantiated.
int forward_kernel_count();

/// The launcher of a built CUDA backward kernel, or null when `key` is not built.
core::BackwardLauncher find_backward_launcher(const core::KernelKey& key);

/// How many CUDA backward kernels were instantiated.
int backward_kernel_count();

/// The launcher of a built CUDA KV-cache decode kernel, or null when `key` is not built.
core::KVCacheLauncher find_kvcache_launcher(const core::KernelKey& key);

/// How many CUDA KV-cache decode kernels were instantiated.
int kvcache_kernel_count();

}  // namespace flashattn::cuda
