// flashattn — host side of the Hopper backward: its main kernel (TMA descriptors in its parameters) inside
// the shared backward launch (cuda/common/launch_bwd.cuh: workspace, preprocess, postprocess, RunInfo).
// Included by the generated instantiation TUs only.
#pragma once

#include <algorithm>

#include "core/kvcache_plan.hpp"
#include "cuda/common/launch_bwd.cuh"
#include "cuda/common/launch_util.hpp"
#include "cuda/sm90/kernel_bwd_sm90_ws.cuh"
#include "cuda/sm90/params_bwd_sm90.cuh"

namespace flashattn::cuda::sm90 {

/// Dynamic shared memory per block of the main kernel (dispatch compares it with the device's limit; the
/// preprocess and postprocess take none).
template <class Element, int kHeadDim>
constexpr int bwd_smem_bytes_sm90() {
  return BwdLayoutsSm90<Element, kHeadDim>::kSmemBytes;
}

/// Launches the main kernel of `kernel_params` (`tiles` key blocks) as clusters of key-block pairs
/// (dq_pairs_bwd_sm90.cuh) where core::bwd_pairs_key_blocks_sm90 holds and the device holds a pair on every
/// two of its `sms` SMs; says whether it did. A launch error is left for cudaGetLastError.
template <class Element, int kHeadDim>
bool launch_bwd_sm90_pairs(const BwdKernelParams& kernel_params, const AttentionArgs& args, unsigned tiles,
                           int sms, cudaStream_t stream, RunInfo& info) {
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  using Pairs = BwdDqPairsSm90<Element, kHeadDim>;
  const BackwardParams& p = kernel_params.problem;
  if (!core::bwd_pairs_key_blocks_sm90(p.has_window(), p.is_varlen() || p.seqused_k != nullptr,
                                       p.deterministic, p.max_seqlen_q, kernel_params.num_n_blocks)) {
    return false;
  }
  constexpr auto* kKernel = &bwd_sm90_kernel<Element, kHeadDim, true>;
  const int clusters =
      max_active_clusters<kKernel>(args.device.index, 2, Layouts::kThreads, Pairs::kSmemBytes);
  if (2 * clusters < sms) return false;
  const unsigned pairs = tiles / 2;
  const BwdParamsSm90<Element, kHeadDim> main_params =
      make_bwd_params_sm90<Element, kHeadDim>(kernel_params, args, pairs, sms);
  cudaLaunchAttribute cluster_dims;
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim.x = 2;  // CTAs 2c and 2c + 1: key blocks 2p and 2p + 1
  cluster_dims.val.clusterDim.y = 1;
  cluster_dims.val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2 * std::min(pairs, static_cast<unsigned>(clusters)));
  config.blockDim = dim3(Layouts::kThreads);
  config.dynamicSmemBytes = Pairs::kSmemBytes;
  config.stream = stream;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  info.num_ctas = static_cast<int>(config.gridDim.x);
  info.cluster_size = 2;
  cudaLaunchKernelEx(&config, kKernel, main_params);
  return true;
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
        // Persistent: one CTA per SM (the kernel's shared memory allows one) takes tiles in their order.
        // Else one CTA per tile, whose one-tile body computes tile blockIdx.x (and a persistent body
        // launched so, without an SM count, takes its next from the counter past the last).
        const bool persistent = bwd_tile_sm90(kHeadDim).persistent_ctas && sms > 0;
        if constexpr (bwd_key_block_pairs_sm90(kHeadDim)) {
          if (persistent &&
              launch_bwd_sm90_pairs<Element, kHeadDim>(kernel_params, args, tiles, sms, stream, info))
            return;
        }
        const BwdParamsSm90<Element, kHeadDim> main_params =
            make_bwd_params_sm90<Element, kHeadDim>(kernel_params, args, tiles, sms);
        const unsigned ctas = persistent ? std::min(tiles, static_cast<unsigned>(sms)) : tiles;
        info.num_ctas = static_cast<int>(ctas);
        kernel<<<ctas, Layouts::kThreads, Layouts::kSmemBytes, stream>>>(main_params);
      });
}

}  // namespace flashattn::cuda::sm90
