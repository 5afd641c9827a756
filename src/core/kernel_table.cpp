// flashattn — the table of built kernels: each key maps to its launcher. CPU entries are always built;
// CUDA entries join from the generated manifest when the CUDA backend is compiled.
#include "core/dispatch.hpp"
#include "cpu/cpu_backend.hpp"
#if defined(FLASHATTN_WITH_CUDA)
#include "cuda/kernel_registry.hpp"
#endif

namespace flashattn::core {
namespace {

Status launch_cpu_forward(const ForwardParams& params, const AttentionArgs& args, RunInfo& info) {
  return cpu::forward(params, args.num_threads, info);
}

Status launch_cpu_backward(const BackwardParams& params, const AttentionArgs& args, RunInfo& info) {
  return cpu::backward(params, args.num_threads, info);
}

Status launch_cpu_kvcache(const KVCacheParams& params, const AttentionArgs& args, RunInfo& info) {
  return cpu::forward_kvcache(params, args.num_threads, info);
}

}  // namespace

ForwardLauncher find_forward_launcher(const KernelKey& key) {
  if (key.backend == Backend::cpu && key.op == OpKind::forward) return launch_cpu_forward;
#if defined(FLASHATTN_WITH_CUDA)
  if (key.backend == Backend::cuda) return cuda::find_forward_launcher(key);
#endif
  return nullptr;
}

BackwardLauncher find_backward_launcher(const KernelKey& key) {
  if (key.backend == Backend::cpu && key.op == OpKind::backward) return launch_cpu_backward;
#if defined(FLASHATTN_WITH_CUDA)
  if (key.backend == Backend::cuda) return cuda::find_backward_launcher(key);
#endif
  return nullptr;
}

int kernel_smem_bytes(const KernelKey& key) {
  if (key.backend == Backend::cpu) return 0;
#if defined(FLASHATTN_WITH_CUDA)
  const SmemBytes smem_bytes = key.op == OpKind::forward    ? cuda::find_forward_smem_bytes(key)
                               : key.op == OpKind::backward ? cuda::find_backward_smem_bytes(key)
                                                            : cuda::find_kvcache_smem_bytes(key);
  if (smem_bytes != nullptr) return smem_bytes();
#endif
  return -1;
}

KVCacheLauncher find_kvcache_launcher(const KernelKey& key) {
  if (key.backend == Backend::cpu && key.op == OpKind::kvcache) return launch_cpu_kvcache;
#if defined(FLASHATTN_WITH_CUDA)
  if (key.backend == Backend::cuda) return cuda::find_kvcache_launcher(key);
#endif
  return nullptr;
}

}  // namespace flashattn::core
