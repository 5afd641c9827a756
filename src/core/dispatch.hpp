// flashattn — kernel selection. One pure function decides which built kernel runs a validated problem;
// is_supported() and forward()/backward() both call it, so they can never disagree. A table
// (kernel_table.cpp) maps each built key to its launcher.
#pragma once

#include <optional>
#include <string>

#include "core/params.hpp"
#include "flashattn/attention.hpp"

namespace flashattn::core {

enum class OpKind { forward, backward, kvcache };

/// Identifies one built kernel. `arch` is 0 for the CPU, else the SM architecture (80, 90);
/// `head_dim` is 0 when the kernel takes any head dim (the CPU); `head_dim_v` is 0 when it equals
/// `head_dim` (every kernel but the D != Dv ones).
struct KernelKey {
  Backend backend = Backend::cpu;
  OpKind op = OpKind::forward;
  DType dtype = DType::fp32;
  int arch = 0;
  int head_dim = 0;
  int head_dim_v = 0;

  /// "fwd_cpu_bf16", "bwd_sm80_fp16_hd128", "fwd_sm90_bf16_hd192_dv128", "kvcache_cpu_bf16", ...
  std::string name() const;
  bool operator==(const KernelKey&) const = default;
};

/// What selection needs to know about the device and the policy, gathered by the caller (impure part).
struct DeviceContext {
  DeviceKind kind = DeviceKind::cpu;
  int arch = 0;                 ///< SM architecture of the CUDA device (e.g. 90); 0 when unknown.
  bool cuda_built = false;      ///< The CUDA backend was compiled in.
  bool device_present = false;  ///< The CUDA device exists.
  /// Dynamic shared memory one block of the device may opt in to, in bytes (H100/H200 227 KB, A100 163 KB,
  /// sm86/sm89/sm120 parts 99 KB); 0 when unknown, and then no kernel is refused for it.
  int max_smem_per_block = 0;
  CudaPath path = CudaPath::automatic;
  bool strict = false;  ///< FLASHATTN_STRICT=1: a fallback is an error.
};

/// The result of selection: a key, or the status saying why nothing can run; plus whether the key is a
/// fallback from the preferred path and why.
struct Selection {
  std::optional<KernelKey> key;
  Status status;
  bool fell_back = false;
  std::string fallback_reason;
};

/// Pure: same inputs, same answer; touches no memory behind the params' pointers.
Selection select_kernel(OpKind op, const ForwardParams& params, const DeviceContext& device);
/// The backward's selection: the same key as above, refused on CUDA when a tensor only the backward has
/// (dout, dq, dk, dv) breaks the kernels' alignment rule.
Selection select_kernel(OpKind op, const BackwardParams& params, const DeviceContext& device);

/// forward_kvcache's selection: the CPU backend for CPU tensors; on CUDA the portable decode kernel
/// (kvcache_sm80_<dtype>_hd<D>) under the forward's device, dtype, alignment and head-dim rules.
Selection select_kernel(OpKind op, const KVCacheParams& params, const DeviceContext& device);

/// Launch signatures of the table's entries.
using ForwardLauncher = Status (*)(const ForwardParams& params, const AttentionArgs& args, RunInfo& info);
using BackwardLauncher = Status (*)(const BackwardParams& params, const AttentionArgs& args, RunInfo& info);
using KVCacheLauncher = Status (*)(const KVCacheParams& params, const AttentionArgs& args, RunInfo& info);

/// The built kernel for `key`, or null when that key is not built.
ForwardLauncher find_forward_launcher(const KernelKey& key);
BackwardLauncher find_backward_launcher(const KernelKey& key);
KVCacheLauncher find_kvcache_launcher(const KernelKey& key);

/// The registry's answer to "how much dynamic shared memory per block does this kernel need at least".
using SmemBytes = int (*)();
/// That amount for the built kernel `key`: 0 for the CPU backend, -1 when `key` is not built.
int kernel_smem_bytes(const KernelKey& key);

}  // namespace flashattn::core
