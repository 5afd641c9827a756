// flashattn — host side of the portable forward kernel: tile choice, grid, shared-memory opt-in, launch on
// the caller's stream and device, and the RunInfo record. Included by the generated instantiation TUs only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/params.hpp"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/common/launch_util.hpp"
#include "cuda/sm80/kernel_fwd_sm80.cuh"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::sm80 {

/// Whether `ctas` CTAs of `smem_bytes` dynamic shared memory each fit one SM of `device` (A100: 164 KB per
/// SM holds one 96 KB CTA; H100/H200: 228 KB hold two). False when the device cannot be asked.
inline bool ctas_fit_sm(int device, int smem_bytes, int ctas) {
  int per_sm = 0;
  int reserved_per_cta = 0;
  if (cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&reserved_per_cta, cudaDevAttrReservedSharedMemoryPerBlock, device) !=
          cudaSuccess) {
    return false;
  }
  return std::int64_t{ctas} * (smem_bytes + reserved_per_cta) <= per_sm;
}

/// Whether `smem_bytes` of dynamic shared memory fit one block of `device` (true when it cannot be asked:
/// the launch then reports the device's refusal).
inline bool fits_block(int device, int smem_bytes) {
  int per_block = 0;
  if (cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    return true;
  }
  return smem_bytes <= per_block;
}

/// Dynamic shared memory per block of the smallest tile the launcher can take (dispatch compares it with
/// the device's limit; launch_fwd_sm80 falls back to that tile where the long-key one does not fit).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim>
constexpr int fwd_smem_bytes_sm80() {
  constexpr int kLong = FwdLayouts<Element, kHeadDim, kHeadDimV, FwdTileRegime::long_keys>::kSmemBytes;
  if constexpr (fwd_tile(kHeadDim, kHeadDimV, FwdTileRegime::short_keys).block_m > 0) {
    constexpr int kShort = FwdLayouts<Element, kHeadDim, kHeadDimV, FwdTileRegime::short_keys>::kSmemBytes;
    return kShort < kLong ? kShort : kLong;
  } else {
    return kLong;
  }
}

/// Launches the forward of `params` with the tile of (kHeadDim, kHeadDimV, kRegime).
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
Status launch_fwd_sm80_tile(const ForwardParams& params, const AttentionArgs& args, RunInfo& info) {
  using Layouts = FwdLayouts<Element, kHeadDim, kHeadDimV, kRegime>;
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
  info.num_ctas = static_cast<int>(ctas);
  DeviceGuard guard(args.device.index);
  if (guard.status() != cudaSuccess) return cuda_error("cudaSetDevice", guard.status());
  auto* kernel = &fwd_sm80_kernel<Element, kHeadDim, kHeadDimV, kRegime>;
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

/// Launches the forward of `params` (validated; q, k, v, out, lse on CUDA device args.device.index; head
/// dims kHeadDim and kHeadDimV) with the tile fwd_tile_regime() picks, the long-key tile where the
/// short-key one would not share an SM — and the short-key tile wherever the long-key one does not fit a
/// block (99 KB parts at D = 256).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim>
Status launch_fwd_sm80(const ForwardParams& params, const AttentionArgs& args, RunInfo& info) {
  constexpr FwdTile kShortTile = fwd_tile(kHeadDim, kHeadDimV, FwdTileRegime::short_keys);
  if constexpr (kShortTile.block_m > 0) {
    using ShortLayouts = FwdLayouts<Element, kHeadDim, kHeadDimV, FwdTileRegime::short_keys>;
    using LongLayouts = FwdLayouts<Element, kHeadDim, kHeadDimV, FwdTileRegime::long_keys>;
    if ((fwd_tile_regime(kHeadDim, kHeadDimV, params.max_seqlen_k, params.causal) ==
             FwdTileRegime::short_keys &&
         ctas_fit_sm(args.device.index, ShortLayouts::kSmemBytes, kShortTile.ctas_per_sm)) ||
        !fits_block(args.device.index, LongLayouts::kSmemBytes)) {
      return launch_fwd_sm80_tile<Element, kHeadDim, kHeadDimV, FwdTileRegime::short_keys>(params, args,
                                                                                           info);
    }
  }
  return launch_fwd_sm80_tile<Element, kHeadDim, kHeadDimV, FwdTileRegime::long_keys>(params, args, info);
}

}  // namespace flashattn::cuda::sm80
