// flashattn — host side of the Hopper backward: its main kernel (TMA descriptors in its parameters) inside
// the shared backward launch (cuda/common/launch_bwd.cuh: workspace, preprocess, postprocess, RunInfo).
// Included by the generated instantiation TUs only.
#pragma once

#include <algorithm>

#include "core/kvcache_plan.hpp"
#include "cuda/common/launch_bwd.cuh"
#include "cuda/sm90/kernel_bwd_sm90_ws.cuh"
#include "cuda/sm90/params_bwd_sm90.cuh"

namespace flashattn::cuda::sm90 {

/// Dynamic shared memory per block of the main kernel (dispatch compares it with the device's limit; the
/// preprocess and postprocess take none).
template <class Element, int kHeadDim>
constexpr int bwd_smem_bytes_sm90() {
  return BwdLayoutsSm90<Element, kHeadDim>::kSmemBytes;
}

/// Launches the backward of `params` (validated; every tensor on sm90 CUDA device args.device.index).
template <class Element, int kHeadDim>
Status launch_bwd_sm90(const BackwardParams& params, const AttentionArgs& args, RunInfo& info) {
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  auto* kernel = &bwd_sm90_kernel<Element, kHeadDim>;
  const BwdMainKernel main{reinterpret_cast<const void*>(kernel),
                           Layouts::kBlockM,
                           Layouts::kBlockN,
                           Layouts::kSmemBytes,
                           "bwd_sm90",
                           /*counts_tiles=*/true};
  return launch_bwd<Element, kHeadDim>(
      params, args, info, main,
      [&](const BwdKernelParams& kernel_params, unsigned tiles, cudaStream_t stream) {
        const int sms = core::cuda_sm_count(args.device.index);
        const BwdParamsSm90<Element, kHeadDim> main_params =
            make_bwd_params_sm90<Element, kHeadDim>(kernel_params, args, tiles, sms);
        // Persistent: one CTA per SM (the kernel's shared memory allows one) takes tiles in their order.
        // Else one CTA per tile, whose one-tile body computes tile blockIdx.x (and a persistent body
        // launched so, without an SM count, takes its next from the counter past the last).
        const bool persistent = bwd_tile_sm90(kHeadDim).persistent_ctas && sms > 0;
        const unsigned ctas = persistent ? std::min(tiles, static_cast<unsigned>(sms)) : tiles;
        info.num_ctas = static_cast<int>(ctas);
        kernel<<<ctas, Layouts::kThreads, Layouts::kSmemBytes, stream>>>(main_params);
      });
}

}  // namespace flashattn::cuda::sm90
