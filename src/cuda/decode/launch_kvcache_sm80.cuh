// flashattn — host side of forward_kvcache on CUDA: plan (splits, workspace), then on the caller's stream
// with no host synchronisation: the step before (append, rotary, the split counters' clear), and the
// split-KV decode kernel, which with more than one split also combines them — inside its clusters on sm90
// and newer up to kMaxClusterSplits splits, by each work item's last split otherwise (combine_decode.cuh).
// The launch depends on the call's shapes and options only
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
#include "cuda/decode/kernel_decode_sm80.cuh"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::decode {

inline constexpr int kAppendWarps = 4;  ///< Rows (one warp each) per CTA of the append kernel.

/// The step before the decode kernel (append_kvcache.cuh): appends k_new / v_new, rotates q into
/// `q_rotated` when not null, and clears `counters` split counters.
template <class Element>
Status launch_append(const KVCacheParams& params, void* q_rotated, unsigned* split_counters,
                     std::int64_t counters, cudaStream_t stream) {
  AppendParams append;
  append.problem = params;
  append.q_rotated = q_rotated;
  const std::int64_t tokens = std::int64_t{params.batch} * params.seqlen_q_new;
  append.append_rows = params.k_new != nullptr ? tokens * params.heads_kv : 0;
  append.query_rows = q_rotated != nullptr ? tokens * params.heads : 0;
  append.split_counters = split_counters;
  append.counters = counters;
  const std::int64_t ctas = (append.append_rows + append.query_rows + kAppendWarps - 1) / kAppendWarps +
                            (counters + kAppendWarps * 32 - 1) / (kAppendWarps * 32);
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
/// append kernel takes none).
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
  // Whether this GPU runs the kernels' code for compute_90 and newer (clusters, griddepcontrol): the append
  // and decode kernels share a TU, so both have that code or neither has.
  const bool sm90_code = major >= 9 && kernel_ptx_version<kernel>(args.device.index) >= 90;
  const bool clusters_possible = sm90_code && plan.num_splits > 1 && plan.num_splits <= kMaxClusterSplits;
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
  const bool inputs_written = params.k_new != nullptr || q_rotated != nullptr;
  unsigned* split_counters = plan.num_splits > 1 && !cluster
                                 ? reinterpret_cast<unsigned*>(workspace.at(plan.split_counters_offset))
                                 : nullptr;
  if (inputs_written || split_counters != nullptr) {
    const Status appended = launch_append<Element>(params, q_rotated, split_counters,
                                                   split_counters != nullptr ? plan.work_items : 0, stream);
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
  if (params.page_table != nullptr) decode.page_divmod = cutlass::FastDivmod(params.page_size);
  decode.group_divmod = cutlass::FastDivmod(decode.group);
  decode.splits_divmod = cutlass::FastDivmod(decode.num_splits);
  decode.row_blocks_divmod = cutlass::FastDivmod(plan.row_blocks);
  decode.heads_kv_divmod = cutlass::FastDivmod(params.heads_kv);
  if (split_counters != nullptr) {
    decode.lse_partial = reinterpret_cast<float*>(workspace.at(plan.lse_partial_offset));
    decode.o_partial = reinterpret_cast<float*>(workspace.at(plan.o_partial_offset));
    decode.split_counters = split_counters;
  }

  if (kSmem > 48 * 1024) {
    // Above 48 KB a CTA's dynamic shared memory needs an explicit opt-in.
    const cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (error != cudaSuccess) return cuda_error("cudaFuncSetAttribute(shared memory)", error);
  }
  // One attribute at most: the cluster of a work item's splits (adjacent in the grid), or, on sm90 and newer
  // when the step before only cleared the split counters, a programmatic dependent launch: the decode kernel
  // starts under that step and waits for it only before counting its first arrival (combine_decode.cuh).
  // When that step wrote the cache or the rotated queries, plain stream order.
  cudaLaunchAttribute attribute;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(ctas));
  config.blockDim = dim3(Layouts::kThreads);
  config.dynamicSmemBytes = kSmem;
  config.stream = stream;
  if (cluster) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(plan.num_splits);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
  } else if (sm90_code && split_counters != nullptr && !inputs_written) {
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  error = cudaLaunchKernelEx(&config, kernel, decode);
  if (error == cudaSuccess) return {};
  return cuda_error(cluster ? "decode_sm80 cluster launch" : "decode_sm80 launch", error);
}

}  // namespace flashattn::cuda::decode
