// flashattn — kernel selection. See dispatch.hpp.
#include "core/dispatch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace flashattn::core {

std::string KernelKey::name() const {
  std::string name = op == OpKind::forward ? "fwd_" : op == OpKind::backward ? "bwd_" : "kvcache_";
  name += backend == Backend::cpu ? std::string("cpu") : "sm" + std::to_string(arch);
  name += "_";
  name += to_string(dtype);
  if (head_dim > 0) name += "_hd" + std::to_string(head_dim);
  if (head_dim_v > 0) name += "_dv" + std::to_string(head_dim_v);
  return name;
}

namespace {

struct VectorOperand {
  const char* name;
  const void* data;
  OperandStrides strides;
};

/// The CUDA kernels move q, k, v and out (and the backward's dout, dq, dk, dv) in 16-byte vectors
/// (cp.async, ldmatrix): each base pointer must be 16-byte aligned and each stride but the last a multiple
/// of 8 elements (16 bytes of fp16/bf16).
template <std::size_t kCount>
Status check_cuda_vector_alignment(const VectorOperand (&operands)[kCount]) {
  for (const auto& operand : operands) {
    if (reinterpret_cast<std::uintptr_t>(operand.data) % 16 != 0) {
      return {StatusCode::unsupported,
              std::string(operand.name) +
                  ": the CUDA kernels need a 16-byte aligned data pointer (they move "
                  "16-byte vectors)"};
    }
    for (const std::int64_t stride : {operand.strides.batch, operand.strides.row, operand.strides.head}) {
      if (stride % 8 != 0) {
        return {StatusCode::unsupported,
                std::string(operand.name) +
                    ": the CUDA kernels need every stride but the last to be a multiple "
                    "of 8 elements (16 bytes), got " +
                    std::to_string(stride)};
      }
    }
  }
  return {};
}

Status check_cuda_vector_alignment(const ForwardParams& params) {
  const VectorOperand operands[] = {{"q", params.q, params.q_strides},
                                    {"k", params.k, params.k_strides},
                                    {"v", params.v, params.v_strides},
                                    {"out", params.out, params.out_strides}};
  return check_cuda_vector_alignment(operands);
}

bool is_built(const KernelKey& key) {
  switch (key.op) {
    case OpKind::forward:
      return find_forward_launcher(key) != nullptr;
    case OpKind::backward:
      return find_backward_launcher(key) != nullptr;
    case OpKind::kvcache:
      return find_kvcache_launcher(key) != nullptr;
  }
  return false;
}

/// Why the built kernel `key` cannot run on `device`, or empty when it can: the dynamic shared memory it
/// needs per block must fit the device's opt-in limit (an unknown limit refuses nothing).
std::string smem_refusal(const KernelKey& key, const DeviceContext& device) {
  const int needed = kernel_smem_bytes(key);
  if (device.max_smem_per_block <= 0 || needed <= device.max_smem_per_block) return {};
  return key.name() + " needs " + std::to_string(needed) +
         " bytes of shared memory per block and the device " + "allows " +
         std::to_string(device.max_smem_per_block);
}

}  // namespace

Selection select_kernel(OpKind op, const ForwardParams& params, const DeviceContext& device) {
  Selection selection;
  if (device.kind == DeviceKind::cpu) {
    // The CPU backend takes every dtype of the API and any head dim.
    selection.key = KernelKey{Backend::cpu, op, params.dtype, 0, 0};
    return selection;
  }
  if (!device.cuda_built) {
    selection.status = {
        StatusCode::unsupported,
        "device: this flashattn build has no CUDA backend (configure with FLASHATTN_CUDA=ON)"};
    return selection;
  }
  if (!device.device_present) {
    selection.status = {StatusCode::unsupported, "device: no CUDA device with this index is visible"};
    return selection;
  }
  if (params.dtype == DType::fp32) {
    selection.status = {StatusCode::unsupported,
                        "q: dtype fp32 is only supported on the CPU; use fp16 or bf16"};
    return selection;
  }
  if (Status aligned = check_cuda_vector_alignment(params); !aligned.ok()) {
    selection.status = aligned;
    return selection;
  }
  // Candidates from the most to the least preferred path; the first one built is taken. A D != Dv problem
  // takes only a kernel built for its pair.
  const int head_dim_v = params.head_dim_v == params.head_dim ? 0 : params.head_dim_v;
  const KernelKey hopper{Backend::cuda, op, params.dtype, 90, params.head_dim, head_dim_v};
  const KernelKey portable{Backend::cuda, op, params.dtype, 80, params.head_dim, head_dim_v};
  const bool hopper_device = device.arch == 90;
  const bool hopper_runs = hopper_device && is_built(hopper) && smem_refusal(hopper, device).empty();
  // Why the Hopper kernel cannot run here: built only for a fallback record or an error message.
  auto hopper_refusal = [&]() -> std::string {
    if (!hopper_device) return "the device is not sm90";
    if (!is_built(hopper)) return "no sm90 kernel is built for " + hopper.name();
    return smem_refusal(hopper, device);
  };
  if (device.path == CudaPath::hopper) {
    if (hopper_runs) {
      selection.key = hopper;
    } else {
      selection.status = {StatusCode::unsupported,
                          "cuda_path: the Hopper path was requested but " + hopper_refusal()};
    }
    return selection;
  }
  if (device.path == CudaPath::automatic && hopper_runs) {
    selection.key = hopper;
    return selection;
  }
  if (device.arch >= 80 && is_built(portable)) {
    if (const std::string refusal = smem_refusal(portable, device); !refusal.empty()) {
      selection.status = {StatusCode::unsupported, "q: " + refusal};
      return selection;
    }
    if (device.path == CudaPath::automatic && hopper_device) {
      if (device.strict) {
        selection.status = {StatusCode::unsupported,
                            "FLASHATTN_STRICT: " + hopper_refusal() + " and fallbacks are errors"};
        return selection;
      }
      selection.fell_back = true;
      selection.fallback_reason = hopper_refusal();
    }
    selection.key = portable;
    return selection;
  }
  if (device.arch < 80) {
    selection.status = {
        StatusCode::unsupported,
        "device: flashattn's CUDA kernels need sm80 or newer, got sm" + std::to_string(device.arch)};
  } else if (head_dim_v != 0) {
    const std::string hopper_reason = hopper_runs ? "the portable path was requested" : hopper_refusal();
    selection.status = {StatusCode::unsupported,
                        "v: head_dim_v " + std::to_string(params.head_dim_v) + " differs from head_dim " +
                            std::to_string(params.head_dim) + " and no CUDA kernel of that pair can run: " +
                            hopper_reason + ", and no portable kernel is built for " + portable.name()};
  } else {
    selection.status = {StatusCode::unsupported, "q: no CUDA kernel is built for dtype " +
                                                     std::string(to_string(params.dtype)) + " and head dim " +
                                                     std::to_string(params.head_dim)};
  }
  return selection;
}

Selection select_kernel(OpKind op, const BackwardParams& params, const DeviceContext& device) {
  Selection selection = select_kernel(op, static_cast<const ForwardParams&>(params), device);
  if (!selection.key || selection.key->backend != Backend::cuda) return selection;
  const VectorOperand operands[] = {{"dout", params.dout, params.dout_strides},
                                    {"dq", params.dq, params.dq_strides},
                                    {"dk", params.dk, params.dk_strides},
                                    {"dv", params.dv, params.dv_strides}};
  if (Status status = check_cuda_vector_alignment(operands); !status.ok()) {
    return Selection{std::nullopt, status, false, {}};
  }
  return selection;
}

Selection select_kernel(OpKind op, const KVCacheParams& params, const DeviceContext& device) {
  Selection selection;
  if (device.kind == DeviceKind::cpu) {
    selection.key = KernelKey{Backend::cpu, op, params.dtype, 0, 0};
    return selection;
  }
  // One CUDA decode kernel family (sm80 atoms, runs on sm80 and newer): it is the kernel for every sm80+
  // device, so taking it on Hopper is no fallback; only an explicit request for the Hopper path is refused.
  if (device.path == CudaPath::hopper) {
    selection.status = {StatusCode::unsupported,
                        "cuda_path: forward_kvcache has no Hopper-specific kernel; use the automatic or "
                        "portable path (its decode kernel runs on sm80 and newer)"};
    return selection;
  }
  DeviceContext portable = device;
  portable.path = CudaPath::portable;
  return select_kernel(op, static_cast<const ForwardParams&>(params), portable);
}

}  // namespace flashattn::core
