// flashattn — host side of the portable forward kernel: grid, shared-memory opt-in, launch on the caller's
// stream and device, and the RunInfo record. Included by the generated instantiation TUs only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/params.hpp"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/sm80/kernel_fwd_sm80.cuh"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::sm80 {

inline Status cuda_error(const char* what, cudaError_t error) {
  return {StatusCode::internal, std::string(what) + ": " + cudaGetErrorString(error)};
}

/// Makes `device` current for the lifetime of the guard and restores the caller's device after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    cudaGetDevice(&previous_);
    if (previous_ != device) status_ = cudaSetDevice(device);
  }
  ~DeviceGuard() {
    int current = previous_;
    cudaGetDevice(&current);
    if (current != previous_) cudaSetDevice(previous_);
  }
  cudaError_t status() const { return status_; }

 private:
  int previous_ = 0;
  cudaError_t status_ = cudaSuccess;
};

/// Launches the forward of `params` (validated; q, k, v, out, lse on CUDA device args.device.index).
template <class Element, int kHeadDim>
Status launch_fwd_sm80(const ForwardParams& params, const AttentionArgs& args, RunInfo& info) {
  using Layouts = FwdLayouts<Element, kHeadDim>;
  const FwdKernelParams kernel_params = make_fwd_kernel_params(params, Layouts::kBlockM);
  const std::int64_t ctas = std::int64_t{kernel_params.num_m_blocks} * params.heads * params.batch;
  info.block_m = Layouts::kBlockM;
  info.block_n = Layouts::kBlockN;
  info.num_splits = 1;
  info.num_threads = 0;
  if (ctas == 0) return {};
  if (ctas > std::numeric_limits<std::int32_t>::max()) {
    return {StatusCode::unsupported, "q: batch * heads * ceil(seqlen_q / " +
                                         std::to_string(Layouts::kBlockM) + ") must stay below 2^31 CTAs"};
  }
  DeviceGuard guard(args.device.index);
  if (guard.status() != cudaSuccess) return cuda_error("cudaSetDevice", guard.status());
  auto* kernel = &fwd_sm80_kernel<Element, kHeadDim>;
  constexpr int kSmem = Layouts::kSmemBytes;
  if (kSmem > 48 * 1024) {
    // Above 48 KB a CTA's dynamic shared memory needs an explicit opt-in (once per device and kernel).
    const cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (error != cudaSuccess) return cuda_error("cudaFuncSetAttribute(shared memory)", error);
  }
  kernel<<<static_cast<unsigned>(ctas), Layouts::kThreads, kSmem, static_cast<cudaStream_t>(args.stream)>>>(
      kernel_params);
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) return cuda_error("fwd_sm80 launch", error);
  return {};
}

}  // namespace flashattn::cuda::sm80
