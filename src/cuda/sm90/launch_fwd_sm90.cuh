// flashattn — host side of the Hopper forward kernel: TMA descriptors and device parameters, grid,
// shared-memory opt-in, launch on the caller's stream and device, and the RunInfo record. Included by the
// generated instantiation TUs only.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/heuristics.hpp"
#include "core/params.hpp"
#include "cuda/common/launch_util.hpp"
#include "cuda/common/stream_workspace.hpp"
#include "cuda/sm90/kernel_fwd_sm90_ws.cuh"
#include "cuda/sm90/params_fwd_sm90.cuh"
#include "cuda/sm90/tile_scheduler_sm90.hpp"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::sm90 {

/// Dynamic shared memory per block of the largest tile the launcher can take (dispatch compares it with
/// the device's limit; the launcher picks its tile by the call's shape, not by what fits).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim>
constexpr int fwd_smem_bytes_sm90() {
  auto bytes = [](auto regime) {
    if constexpr (fwd_tile_sm90(kHeadDim, kHeadDimV, decltype(regime)::value).block_m > 0) {
      return FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, decltype(regime)::value>::kSmemBytes;
    } else {
      return 0;
    }
  };
  const int long_keys = bytes(std::integral_constant<FwdTileRegime, FwdTileRegime::long_keys>{});
  const int short_keys = bytes(std::integral_constant<FwdTileRegime, FwdTileRegime::short_keys>{});
  const int packed_gqa = bytes(std::integral_constant<FwdTileRegime, FwdTileRegime::packed_gqa>{});
  return std::max({long_keys, short_keys, packed_gqa});
}

/// Whether a forward call with GQA takes the packed tile of (kHeadDim, kHeadDimV) on a device of
/// `multiprocessors` SMs: where it has one, core::pack_gqa_sm90 says it saves tiles and rounds of the
/// persistent CTAs, no ALiBi (its slope is per query head, and packed tiles mix heads), and the packed rows
/// of the longest sequence (plus a tile) stay within an int.
template <int kHeadDim, int kHeadDimV>
bool takes_packed_gqa_sm90(const ForwardParams& params, int multiprocessors) {
  constexpr FwdTileSm90 kTile = fwd_tile_sm90(kHeadDim, kHeadDimV, FwdTileRegime::packed_gqa);
  if constexpr (kTile.block_m == 0) {
    return false;
  } else {
    const std::int64_t group = params.heads / params.heads_kv;
    const std::int64_t batch_heads_kv = std::int64_t{params.batch} * params.heads_kv;
    return params.alibi_slopes == nullptr &&
           core::pack_gqa_sm90(params.max_seqlen_q, group, kTile.block_m, batch_heads_kv, multiprocessors) &&
           params.max_seqlen_q * group + kTile.block_m <= std::numeric_limits<std::int32_t>::max();
  }
}

/// Launches the forward of `params` with the tile of (kHeadDim, kHeadDimV, kRegime) on the current device
/// (args.device.index) as `units` CTAs (one per SM) or, in a paired regime (Layouts::kKvMulticast), cluster
/// pairs running at once, which split `pairs`.
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
Status launch_fwd_sm90_tile(const ForwardParams& params, const AttentionArgs& args, int units, RunInfo& info,
                            FwdPairs pairs = FwdPairs::query_heads) {
  using Layouts = FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  info.block_m = Layouts::kBlockM;
  info.block_n = Layouts::kBlockN;
  info.packed_heads = Layouts::kPackGqa ? params.heads / params.heads_kv : 0;
  info.num_splits = 1;
  info.num_threads = 0;
  info.kernel += fwd_ablation_suffix_sm90();
  FwdParamsSm90<Element, kHeadDim, kHeadDimV, kRegime> kernel_params =
      make_fwd_params_sm90<Element, kHeadDim, kHeadDimV, kRegime>(params, args, units, pairs);
  if (kernel_params.order.tiles == 0) return {};
  // The scheduler indexes (batch, head) pairs, query tiles and the positions of its order with ints.
  if (kernel_params.order.positions > std::numeric_limits<std::int32_t>::max()) {
    return {StatusCode::unsupported, "q: batch * heads * ceil(seqlen_q / " +
                                         std::to_string(Layouts::kBlockM) + ") must stay below 2^31 tiles"};
  }
  const int ctas = kernel_params.order.ctas * Layouts::kClusterSize;
  info.num_ctas = ctas;
  const auto stream = static_cast<cudaStream_t>(args.stream);
  // An order ending in a stream cuts tiles: a workspace slot per CTA (at most one per SM, which
  // forward_workspace_size() counts), whose flags the kernel needs zero (cleared on the call's stream,
  // before it). The caller's, else allocated and freed on the stream after the kernel.
  using SplitTail = FwdSplitTailOfSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  const bool cuts_tiles = kernel_params.order.stream_start < kernel_params.order.positions;
  StreamWorkspace workspace(cuts_tiles ? SplitTail::workspace_bytes(ctas) : 0, params.workspace,
                            params.workspace_bytes, stream, "forward_workspace_size");
  if (!workspace.status().ok()) return workspace.status();
  info.cut_tiles = PersistentTileScheduler::cut_tiles(kernel_params.order) * Layouts::kClusterSize;
  if (cuts_tiles) {
    kernel_params.split_tail = SplitTail::carve(workspace.data(), ctas);
    const cudaError_t cleared =
        cudaMemsetAsync(kernel_params.split_tail.flags, 0, SplitTail::flags_bytes(ctas), stream);
    if (cleared != cudaSuccess) return cuda_error("cudaMemsetAsync(cut tiles' flags)", cleared);
  }
  info.cluster_size = Layouts::kKvMulticast ? Layouts::kClusterSize : 0;
  auto* kernel = &fwd_sm90_kernel<Element, kHeadDim, kHeadDimV, kRegime>;
  constexpr int kSmem = Layouts::kSmemBytes;
  // Above 48 KB a CTA's dynamic shared memory needs an explicit opt-in (once per device and kernel).
  cudaError_t error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (error != cudaSuccess) return cuda_error("cudaFuncSetAttribute(shared memory)", error);
  if constexpr (Layouts::kKvMulticast) {
    cudaLaunchAttribute cluster_dims;
    cluster_dims.id = cudaLaunchAttributeClusterDimension;
    cluster_dims.val.clusterDim.x = Layouts::kClusterSize;  // CTAs 2c and 2c + 1
    cluster_dims.val.clusterDim.y = 1;
    cluster_dims.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(ctas));
    config.blockDim = dim3(Layouts::kThreads);
    config.dynamicSmemBytes = kSmem;
    config.stream = stream;
    config.attrs = &cluster_dims;
    config.numAttrs = 1;
    error = cudaLaunchKernelEx(&config, kernel, kernel_params);
    return error == cudaSuccess ? Status{} : cuda_error("fwd_sm90 cluster launch", error);
  } else {
    kernel<<<ctas, Layouts::kThreads, kSmem, stream>>>(kernel_params);
    error = cudaGetLastError();
    if (error != cudaSuccess) return cuda_error("fwd_sm90 launch", error);
    return {};
  }
}

/// Launches the forward of `params` with the tile of (kHeadDim, kHeadDimV, kRegime), long_keys or
/// short_keys, on a device of `multiprocessors` SMs: by cluster pairs (the paired regime's kernel) where a
/// pair's tile is built, core::fwd_pairs_sm90 pairs the call, and the device holds a pair on every two SMs;
/// otherwise one CTA per SM.
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
Status launch_fwd_sm90_pairs_or_ctas(const ForwardParams& params, const AttentionArgs& args,
                                     int multiprocessors, RunInfo& info) {
  constexpr FwdTileRegime kPaired = fwd_paired_regime(kRegime);
  if constexpr (fwd_tile_sm90(kHeadDim, kHeadDimV, kPaired).block_m > 0) {
    using Layouts = FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kPaired>;
    const std::int64_t m_blocks = (params.max_seqlen_q + Layouts::kBlockM - 1) / Layouts::kBlockM;
    const bool bounded = params.window_left < kUnboundedWindow && params.window_right < kUnboundedWindow;
    const std::int64_t window_width = bounded ? params.window_left + params.window_right + 1 : 0;
    const FwdPairs pairs =
        core::fwd_pairs_sm90(params.heads, params.heads_kv, params.max_seqlen_k, window_width,
                             params.has_window(), params.is_varlen(), m_blocks);
    if (pairs != FwdPairs::none) {
      const int units = max_active_clusters<&fwd_sm90_kernel<Element, kHeadDim, kHeadDimV, kPaired>>(
          args.device.index, Layouts::kClusterSize, Layouts::kThreads, Layouts::kSmemBytes);
      if (Layouts::kClusterSize * units >= multiprocessors) {
        return launch_fwd_sm90_tile<Element, kHeadDim, kHeadDimV, kPaired>(params, args, units, info, pairs);
      }
    }
  }
  return launch_fwd_sm90_tile<Element, kHeadDim, kHeadDimV, kRegime>(params, args, multiprocessors, info);
}

/// Launches the forward of `params` (validated; q, k, v, out, lse on sm90 CUDA device args.device.index;
/// head dims kHeadDim and kHeadDimV) with the tile fwd_tile_regime_sm90() picks (RunInfo's block_m /
/// block_n say which, cluster_size whether cluster pairs ran it).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim>
Status launch_fwd_sm90(const ForwardParams& params, const AttentionArgs& args, RunInfo& info) {
  DeviceGuard guard(args.device.index);
  if (guard.status() != cudaSuccess) return cuda_error("cudaSetDevice", guard.status());
  int multiprocessors = 0;
  const cudaError_t error =
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, args.device.index);
  if (error != cudaSuccess) return cuda_error("cudaDeviceGetAttribute(multiprocessors)", error);
  if constexpr (fwd_tile_sm90(kHeadDim, kHeadDimV, FwdTileRegime::packed_gqa).block_m > 0) {
    if (takes_packed_gqa_sm90<kHeadDim, kHeadDimV>(params, multiprocessors)) {
      return launch_fwd_sm90_tile<Element, kHeadDim, kHeadDimV, FwdTileRegime::packed_gqa>(
          params, args, multiprocessors, info);
    }
  }
  if constexpr (fwd_tile_sm90(kHeadDim, kHeadDimV, FwdTileRegime::short_keys).block_m > 0) {
    if (fwd_tile_regime_sm90(kHeadDim, kHeadDimV, params.max_seqlen_k, params.causal) ==
        FwdTileRegime::short_keys) {
      return launch_fwd_sm90_pairs_or_ctas<Element, kHeadDim, kHeadDimV, FwdTileRegime::short_keys>(
          params, args, multiprocessors, info);
    }
  }
  return launch_fwd_sm90_pairs_or_ctas<Element, kHeadDim, kHeadDimV, FwdTileRegime::long_keys>(
      params, args, multiprocessors, info);
}

}  // namespace flashattn::cuda::sm90
