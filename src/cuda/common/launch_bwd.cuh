// flashattn — the host side every backward kernel family shares: grid sizes and their limits, the RunInfo
// record, the workspace (the caller's, or allocated and freed on the call's stream), the shared-memory opt-in
// of the main kernel, the preprocess, the main kernel (launched by the family), the dQ semaphores of
// deterministic runs and the postprocess. Included by the families' launch headers only.
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
#include "cuda/common/stream_workspace.hpp"
#include "flashattn/attention.hpp"

namespace flashattn::cuda {

/// What the shared launcher needs to know of a family's main kernel.
struct BwdMainKernel {
  const void* function;  ///< For the shared-memory opt-in.
  int block_m;           ///< Query rows per step.
  int block_n;           ///< Keys per CTA.
  int smem_bytes;        ///< Dynamic shared memory per CTA.
  const char* name;      ///< For error messages, e.g. "bwd_sm90".
  /// Its persistent CTAs take tiles from the workspace's tile counter, which must read 0 at its start.
  bool counts_tiles = false;
};

/// Runs the backward of `params` (validated; every tensor on CUDA device args.device.index):
/// `launch_main(kernel_params, main_ctas, stream)` launches the family's main kernel between the shared
/// preprocess and postprocess. dK and dV are bitwise reproducible (one writer, fixed order); dQ is summed
/// over key blocks with fp32 atomics, in an order that varies across runs unless params.deterministic,
/// which orders the key blocks' additions to each query block with semaphores (ascending key block).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim, class LaunchMain>
Status launch_bwd(const BackwardParams& params, const AttentionArgs& args, RunInfo& info,
                  const BwdMainKernel& main, LaunchMain&& launch_main) {
  info.block_m = main.block_m;
  info.block_n = main.block_n;
  info.num_splits = 1;
  info.num_threads = 0;
  const std::int64_t row_ctas =
      std::int64_t{(params.max_seqlen_q + kBwdRowsPerCta - 1) / kBwdRowsPerCta} * params.heads * params.batch;
  const std::int64_t main_ctas =
      std::int64_t{(params.max_seqlen_k + main.block_n - 1) / main.block_n} * params.heads_kv * params.batch;
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
  // Above 48 KB a CTA's dynamic shared memory needs an explicit opt-in (once per device and kernel).
  if (main.smem_bytes > 48 * 1024) {
    const cudaError_t error =
        cudaFuncSetAttribute(main.function, cudaFuncAttributeMaxDynamicSharedMemorySize, main.smem_bytes);
    if (error != cudaSuccess) return cuda_error("cudaFuncSetAttribute(shared memory)", error);
  }

  // The kernels index their semaphores by blocks of block_m rows; the size reported to callers counts
  // blocks of kMinBlockM, so every kernel's block_m is a multiple of it.
  if (main.block_m % BwdWorkspace::kMinBlockM != 0) {
    return {StatusCode::internal, std::string(main.name) + ": block_m is not a multiple of the workspace's"};
  }
  // An allocation takes at least one byte: a zero-byte request may give no pointer, and the kernels need
  // one (Sq = 0 with keys still has dK, dV to zero).
  const std::size_t bytes = BwdWorkspace::bytes(params, main.block_m);
  const StreamWorkspace workspace(params.workspace != nullptr ? bytes : std::max<std::size_t>(bytes, 1),
                                  params.workspace, params.workspace_bytes, stream,
                                  "backward_workspace_size");
  if (!workspace.status().ok()) return workspace.status();
  const BwdKernelParams kernel_params = make_bwd_kernel_params(
      params, BwdWorkspace::bind(params, main.block_m, workspace.data()), main.block_m, main.block_n);
  // Every query row is preprocessed, even one that sees no key: its dQ accumulator must read zero.
  if (row_ctas > 0) {
    bwd_preprocess_kernel<Element, kHeadDim, kHeadDimV>
        <<<static_cast<unsigned>(row_ctas), kBwdRowThreads, 0, stream>>>(kernel_params);
  }
  if (params.deterministic || main.counts_tiles) {
    const cudaError_t error = cudaMemsetAsync(kernel_params.workspace.tile_counter, 0,
                                              BwdWorkspace::counter_bytes(params, main.block_m), stream);
    if (error != cudaSuccess) return cuda_error("cudaMemsetAsync(tile counter, dQ semaphores)", error);
  }
  if (main_ctas > 0) launch_main(kernel_params, static_cast<unsigned>(main_ctas), stream);
  if (row_ctas > 0) {
    bwd_postprocess_kernel<Element, kHeadDim>
        <<<static_cast<unsigned>(row_ctas), kBwdRowThreads, 0, stream>>>(kernel_params);
  }
  // An owned workspace is freed in stream order after the postprocess, even when a launch failed.
  const cudaError_t launch_error = cudaGetLastError();
  if (launch_error != cudaSuccess)
    return cuda_error((std::string(main.name) + " launch").c_str(), launch_error);
  return {};
}

}  // namespace flashattn::cuda
