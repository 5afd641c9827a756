// flashattn — host side of forward_kvcache on CUDA: plan (splits, workspace), then on the caller's stream
// with no host synchronisation: the append / rotary kernel, the split-KV decode kernel, and with more than
// one split the combine — inside the decode kernel's clusters on sm90 and newer up to kMaxClusterSplits
// splits, as a kernel of its own otherwise. The launch depends on the call's shapes and options only
// (cache_seqlens and the page table stay on the device, unread by the host), so it can be captured in a CUDA
// graph once the caller passes a workspace. Included by the generated instantiation TUs only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/kvcache_plan.hpp"
#include "core/params.hpp"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/common/launch_util.hpp"
#include "cuda/common/stream_workspace.hpp"
#include "cuda/decode/append_kvcache.cuh"
#include "cuda/decode/combine_decode.cuh"
#include "cuda/decode/kernel_decode_sm80.cuh"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::decode {

inline constexpr int kAppendWarps = 4;  ///< Rows (one warp each) per CTA of the append kernel.

template <class Element>
Status launch_append(const KVCacheParams& params, void* q_rotated, cudaStream_t stream) {
  AppendParams append;
  append.problem = params;
  append.q_rotated = q_rotated;
  const std::int64_t tokens = std::int64_t{params.batch} * params.seqlen_q_new;
  append.append_rows = params.k_new != nullptr ? tokens * params.heads_kv : 0;
  append.query_rows = q_rotated != nullptr ? tokens * params.heads : 0;
  const std::int64_t ctas = (append.append_rows + append.query_rows + kAppendWarps - 1) / kAppendWarps;
  if (ctas == 0) return {};
  if (ctas > std::numeric_limits<std::int32_t>::max()) {
    return {StatusCode::unsupported, "q: B * Sq * (H + Hk) rows must stay below 2^33 for the append kernel"};
  }
  append_kvcache_kernel<Element, kAppendWarps>
      <<<static_cast<unsigned>(ctas), kAppendWarps * 32, 0, stream>>>(append);
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? Status{} : cuda_error("append_kvcache launch", error);
}

/// Dynamic shared memory per block of the decode kernel (dispatch compares it with the device's limit; the
/// append and combine kernels take none).
template <class Element, int kHeadDim>
constexpr int kvcache_smem_bytes_sm80() {
  return DecodeLayouts<Element, kHeadDim>::kSmemBytes;
}

/// Runs forward_kvcache for `params` (validated; every tensor on CUDA device args.device.index).
template <class Element, int kHeadDim>
Status launch_kvcache_sm80(const KVCacheParams& params, const AttentionArgs& args, RunInfo& info) {
  using Layouts = DecodeLayouts<Element, kHeadDim>;
  static_assert(core::kDecodeRowsPerCta == Layouts::kBlockM && core::kDecodeKeysPerTile == Layouts::kBlockN);
  DeviceGuard guard(args.device.index);
  if (guard.status() != cudaSuccess) return cuda_error("cudaSetDevice", guard.status());
  int major = 0;
  cudaError_t error = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, args.device.index);
  if (error != cudaSuccess) return cuda_error("cudaDeviceGetAttribute(compute capability)", error);
  const core::KVCachePlan plan = core::plan_kvcache(params, core::cuda_sm_count(args.device.index));
  const std::int64_t ctas = std::int64_t{params.batch} * params.heads_kv * plan.row_blocks * plan.num_splits;
  if (ctas > std::numeric_limits<std::int32_t>::max()) {
    return {StatusCode::unsupported, "q: B * Hk * ceil(Sq * H / Hk / 16) * num_splits must stay below 2^31"};
  }
  info.block_m = Layouts::kBlockM;
  info.block_n = Layouts::kBlockN;
  info.num_splits = plan.num_splits;
  info.num_threads = 0;
  info.num_ctas = static_cast<int>(ctas);
  info.packed_heads = params.heads > params.heads_kv ? params.heads / params.heads_kv : 0;  // always packs
  // The splits combine in their cluster (core::combine_splits_in_clusters) where the GPU has clusters, the
  // kernel this GPU runs was compiled with the cluster code (compute_90 or newer) and they fit one cluster.
  // (The plan's workspace still holds partials for them: its size is a function of the shapes only, the
  // same on every GPU.)
  constexpr auto* kernel = &decode_sm80_kernel<Element, kHeadDim>;
  constexpr int kSmem = Layouts::kSmemBytes;
  const bool clusters_possible = major >= 9 && plan.num_splits > 1 && plan.num_splits <= kMaxClusterSplits &&
                                 kernel_ptx_version<kernel>(args.device.index) >= 90;
  const int resident_clusters =
      clusters_possible
          ? max_active_clusters<kernel>(args.device.index, plan.num_splits, Layouts::kThreads, kSmem)
          : 0;
  const bool cluster =
      core::combine_splits_in_clusters(plan.num_splits, ctas / plan.num_splits, resident_clusters);
  info.cluster_size = cluster ? plan.num_splits : 0;

  const auto stream = static_cast<cudaStream_t>(args.stream);
  const StreamWorkspace workspace(plan.bytes, params.workspace, params.workspace_bytes, stream,
                                  "kvcache_workspace_size");
  if (!workspace.status().ok()) return workspace.status();
  void* q_rotated = params.rotary_cos != nullptr ? workspace.at(plan.q_rotated_offset) : nullptr;
  if (params.k_new != nullptr || q_rotated != nullptr) {
    const Status appended = launch_append<Element>(params, q_rotated, stream);
    if (!appended.ok()) return appended;
  }

  ForwardParams attention = params;
  if (q_rotated != nullptr) {
    attention.q = q_rotated;
    const std::int64_t row = std::int64_t{params.heads} * params.head_dim;
    attention.q_strides = {row * params.seqlen_q_new, row, params.head_dim};
  }
  DecodeKernelParams decode;
  decode.fwd = make_fwd_kernel_params(attention, Layouts::kBlockM);
  decode.group = params.heads / params.heads_kv;
  decode.seqlen_q = params.seqlen_q_new;
  decode.rows = params.seqlen_q_new * decode.group;
  decode.num_splits = plan.num_splits;
  decode.partial_rows = std::int64_t{params.batch} * params.heads * params.seqlen_q_new;
  decode.cluster_combine = cluster;
  decode.cache_evict_first = core::decode_cache_evict_first(params, core::cuda_l2_bytes(args.device.index));
  if (params.page_table != nullptr) decode.page_divmod = cutlass::FastDivmod(params.page_size);
  decode.group_divmod = cutlass::FastDivmod(decode.group);
  decode.splits_divmod = cutlass::FastDivmod(decode.num_splits);
  decode.row_blocks_divmod = cutlass::FastDivmod(plan.row_blocks);
  decode.heads_kv_divmod = cutlass::FastDivmod(params.heads_kv);
  if (plan.num_splits > 1 && !cluster) {
    decode.lse_partial = reinterpret_cast<float*>(workspace.at(plan.lse_partial_offset));
    decode.o_partial = reinterpret_cast<float*>(workspace.at(plan.o_partial_offset));
  }

  if (kSmem > 48 * 1024) {
    // Above 48 KB a CTA's dynamic shared memory needs an explicit opt-in.
    const cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (error != cudaSuccess) return cuda_error("cudaFuncSetAttribute(shared memory)", error);
  }
  if (cluster) {
    cudaLaunchAttribute cluster_dims;
    cluster_dims.id = cudaLaunchAttributeClusterDimension;
    cluster_dims.val.clusterDim.x = static_cast<unsigned>(plan.num_splits);  // a work item's splits: adjacent
    cluster_dims.val.clusterDim.y = 1;
    cluster_dims.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(ctas));
    config.blockDim = dim3(Layouts::kThreads);
    config.dynamicSmemBytes = kSmem;
    config.stream = stream;
    config.attrs = &cluster_dims;
    config.numAttrs = 1;
    error = cudaLaunchKernelEx(&config, kernel, decode);
    return error == cudaSuccess ? Status{} : cuda_error("decode_sm80 cluster launch", error);
  }
  kernel<<<static_cast<unsigned>(ctas), Layouts::kThreads, kSmem, stream>>>(decode);
  error = cudaGetLastError();
  if (error != cudaSuccess) return cuda_error("decode_sm80 launch", error);

  if (plan.num_splits > 1) {
    const std::int64_t combine_ctas = decode.partial_rows;  // one CTA per query row
    if (combine_ctas > std::numeric_limits<std::int32_t>::max()) {
      return {StatusCode::unsupported, "q: B * H * Sq must stay below 2^31 for the split combine"};
    }
    // Programmatic dependent launch on sm90 and newer (see the griddepcontrol instructions of both kernels):
    // the combine's launch overlaps the decode grid's tail. Stream order is unchanged for everything else.
    cudaLaunchAttribute dependent;
    dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(combine_ctas));
    config.blockDim = dim3(kCombineThreads);
    config.stream = stream;
    config.attrs = major >= 9 ? &dependent : nullptr;
    config.numAttrs = major >= 9 ? 1 : 0;
    error = cudaLaunchKernelEx(&config, combine_decode_kernel<Element, kHeadDim>, decode);
    if (error != cudaSuccess) return cuda_error("combine_decode launch", error);
  }
  return {};
}

}  // namespace flashattn::cuda::decode
