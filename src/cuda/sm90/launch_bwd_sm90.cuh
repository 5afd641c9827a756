// flashattn — host side of the Hopper backward: the workspace (allocated and freed on the call's stream),
// the three launches (the shared preprocess, the sm90 main kernel, the shared postprocess), TMA
// descriptors, the shared-memory opt-in and the RunInfo record. Included by the generated instantiation
// TUs only.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "core/params.hpp"
#include "cuda/common/bwd_kernel_params.hpp"
#include "cuda/common/bwd_postprocess.cuh"
#include "cuda/common/bwd_preprocess.cuh"
#include "cuda/common/launch_util.hpp"
#include "cuda/sm90/kernel_bwd_sm90_ws.cuh"
#include "cuda/sm90/params_bwd_sm90.cuh"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::sm90 {

/// Launches the backward of `params` (validated; every tensor on sm90 CUDA device args.device.index).
/// dK and dV are bitwise reproducible (one writer, fixed order); dQ is summed over key blocks with fp32
/// atomics, in an order that varies across runs unless params.deterministic, which orders the key blocks'
/// additions to each query block with semaphores (ascending key block).
template <class Element, int kHeadDim>
Status launch_bwd_sm90(const BackwardParams& params, const AttentionArgs& args, RunInfo& info) {
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  info.block_m = Layouts::kBlockM;
  info.block_n = Layouts::kBlockN;
  info.num_splits = 1;
  info.num_threads = 0;
  const std::int64_t row_ctas =
      std::int64_t{(params.max_seqlen_q + kBwdRowsPerCta - 1) / kBwdRowsPerCta} * params.heads * params.batch;
  const std::int64_t main_ctas =
      std::int64_t{(params.max_seqlen_k + Layouts::kBlockN - 1) / Layouts::kBlockN} * params.heads_kv *
      params.batch;
  if (row_ctas > std::numeric_limits<std::int32_t>::max() ||
      main_ctas > std::numeric_limits<std::int32_t>::max()) {
    return {StatusCode::unsupported, "q: batch * heads * ceil(seqlen / " + std::to_string(kBwdRowsPerCta) +
                                         ") must stay below 2^31 CTAs"};
  }
  info.num_ctas = static_cast<int>(main_ctas);
  if (row_ctas == 0 && main_ctas == 0) return {};

  DeviceGuard guard(args.device.index);
  if (guard.status() != cudaSuccess) return cuda_error("cudaSetDevice", guard.status());
  const auto stream = static_cast<cudaStream_t>(args.stream);
  auto* kernel = &bwd_sm90_kernel<Element, kHeadDim>;
  constexpr int kSmem = Layouts::kSmemBytes;
  // Above 48 KB a CTA's dynamic shared memory needs an explicit opt-in (once per device and kernel).
  if (const cudaError_t error =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      error != cudaSuccess) {
    return cuda_error("cudaFuncSetAttribute(shared memory)", error);
  }

  void* workspace = nullptr;
  // At least one byte: a zero-byte request may give no pointer (Sq = 0 with keys still has dK, dV to zero).
  if (const cudaError_t error = cudaMallocAsync(
          &workspace, std::max<std::size_t>(BwdWorkspace::bytes(params, Layouts::kBlockM), 1), stream);
      error != cudaSuccess) {
    return cuda_error("cudaMallocAsync(backward workspace)", error);
  }
  const BwdKernelParams kernel_params = make_bwd_kernel_params(
      params, BwdWorkspace::bind(params, Layouts::kBlockM, workspace), Layouts::kBlockM, Layouts::kBlockN);
  // Every query row is preprocessed, even one that sees no key: its dQ accumulator must read zero.
  if (row_ctas > 0) {
    bwd_preprocess_kernel<Element, kHeadDim>
        <<<static_cast<unsigned>(row_ctas), kBwdRowThreads, 0, stream>>>(kernel_params);
  }
  if (params.deterministic) {
    const cudaError_t error =
        cudaMemsetAsync(kernel_params.workspace.dq_semaphore, 0,
                        BwdWorkspace::semaphore_bytes(params, Layouts::kBlockM), stream);
    if (error != cudaSuccess) {
      cudaFreeAsync(workspace, stream);
      return cuda_error("cudaMemsetAsync(dQ semaphores)", error);
    }
  }
  if (main_ctas > 0) {
    const BwdParamsSm90<Element, kHeadDim> main_params =
        make_bwd_params_sm90<Element, kHeadDim>(kernel_params, args);
    kernel<<<static_cast<unsigned>(main_ctas), Layouts::kThreads, kSmem, stream>>>(main_params);
  }
  if (row_ctas > 0) {
    bwd_postprocess_kernel<Element, kHeadDim>
        <<<static_cast<unsigned>(row_ctas), kBwdRowThreads, 0, stream>>>(kernel_params);
  }
  const cudaError_t launch_error = cudaGetLastError();
  // Freed in stream order after the postprocess, even when a launch failed (nothing then reads it).
  const cudaError_t free_error = cudaFreeAsync(workspace, stream);
  if (launch_error != cudaSuccess) return cuda_error("bwd_sm90 launch", launch_error);
  if (free_error != cudaSuccess) return cuda_error("cudaFreeAsync(backward workspace)", free_error);
  return {};
}

}  // namespace flashattn::cuda::sm90
