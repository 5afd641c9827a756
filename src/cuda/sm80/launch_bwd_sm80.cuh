// flashattn — host side of the portable backward: its main kernel inside the shared backward launch
// (cuda/common/launch_bwd.cuh: workspace, preprocess, postprocess, RunInfo). Included by the generated
// instantiation TUs only.
#pragma once

#include "cuda/common/launch_bwd.cuh"
#include "cuda/sm80/kernel_bwd_sm80.cuh"

namespace flashattn::cuda::sm80 {

/// Dynamic shared memory per block of the main kernel (dispatch compares it with the device's limit; the
/// preprocess and postprocess take none).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim>
constexpr int bwd_smem_bytes_sm80() {
  return BwdLayouts<Element, kHeadDim, kHeadDimV>::kSmemBytes;
}

/// Launches the backward of `params` (validated; every tensor on CUDA device args.device.index; head dims
/// kHeadDim and kHeadDimV).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim>
Status launch_bwd_sm80(const BackwardParams& params, const AttentionArgs& args, RunInfo& info) {
  using Layouts = BwdLayouts<Element, kHeadDim, kHeadDimV>;
  auto* kernel = &bwd_sm80_kernel<Element, kHeadDim, kHeadDimV>;
  const BwdMainKernel main{reinterpret_cast<const void*>(kernel), Layouts::kBlockM, Layouts::kBlockN,
                           Layouts::kSmemBytes, "bwd_sm80"};
  return launch_bwd<Element, kHeadDim, kHeadDimV>(
      params, args, info, main,
      [&](const BwdKernelParams& kernel_params, unsigned ctas, cudaStream_t stream) {
        kernel<<<ctas, Layouts::kThreads, Layouts::kSmemBytes, stream>>>(kernel_params);
      });
}

}  // namespace flashattn::cuda::sm80
