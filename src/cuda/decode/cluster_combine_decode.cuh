// flashattn — the split combine inside one thread-block cluster (sm90 and newer): when the num_splits CTAs of
// a (batch, kv head, row block) are launched as one cluster, each leaves its merged state (normalised O of
// the block's rows in fp32, and their lse) in its own shared memory, and after a cluster barrier every CTA
// reads all of them through distributed shared memory and writes its share of the block's output. The
// merge is combine_decode.cuh's, in split order with the same weights exp(lse_s - max) / sum computed by the
// same code (split_weights.cuh), so the two paths agree bit for bit. It saves the
// partials' round trip through global memory and the combine kernel, which at small batches is most of a
// decode call's latency (B 1, L 1k: decode 11 µs, combine 5.8 µs under ncu; docs/PERF.md).
//
// Invariants: every CTA of the cluster reaches both cluster barriers (the kernel has no early exit), and no
// CTA leaves before the second, so no CTA's shared memory goes away while another reads it.
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include <cooperative_groups.h>
#endif

#include "cuda/decode/decode_kernel_params.hpp"
#include "cuda/decode/decode_output.cuh"
#include "cuda/decode/layouts_decode_sm80.cuh"
#include "cuda/decode/split_weights.cuh"
#include "cuda/decode/tile_decode.hpp"

namespace flashattn::cuda::decode {

template <class Element, int kHeadDim>
struct DecodeClusterCombine {
  using Layouts = DecodeLayouts<Element, kHeadDim>;
  using Output = DecodeOutput<Element, kHeadDim>;
  static_assert(Layouts::kBlockM <= Layouts::kThreads, "one thread per row computes the row's split weights");

  /// Call from every thread of every CTA of the cluster once the CTA's merged O is in merge.o[0] (rows of
  /// the block, kMergeRowStride apart) and its lse in merge.merged_lse. The cluster is the call's
  /// num_splits CTAs, its rank the split.
  __device__ __forceinline__ static void run(const DecodeKernelParams& params,
                                             typename Layouts::SharedStorage& smem, int batch, int head_kv,
                                             int row0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    const int tid = threadIdx.x;
    const int splits = params.num_splits;
    const int rank = static_cast<int>(cluster.block_rank());
    auto& merge = smem.merge;
    cluster.sync();  // every split's merged state is written and visible to the cluster
    const int valid_rows = min(Layouts::kBlockM, params.rows - row0);  // >= 1: the launch has no empty block

    // This code runs once per CTA, cold in the instruction cache, so its length is most of its cost: the
    // loops over splits stay rolled (unrolled over kMaxClusterSplits, the weights took ~30% of B 1 L 1k's
    // time, docs/PERF.md), and the remote loads are spread over the threads instead. First each split's lse
    // of every valid row, one remote load per thread, into this CTA's split_weight[split][row].
    for (int i = tid; i < splits * Layouts::kBlockM; i += Layouts::kThreads) {
      const int s = i / Layouts::kBlockM;
      const int r = i % Layouts::kBlockM;
      if (r < valid_rows) merge.split_weight[s][r] = *cluster.map_shared_rank(&merge.merged_lse[r], s);
    }
    __syncthreads();
    // Then one thread per valid row turns its row's lses into weights in place (split_weights.cuh).
    if (tid < valid_rows) {
      float max_lse = -INFINITY;
#pragma unroll 1
      for (int s = 0; s < splits; ++s) max_lse = fmaxf(max_lse, merge.split_weight[s][tid]);
      float sum = 0.0f;
#pragma unroll 1
      for (int s = 0; s < splits; ++s) sum = add_split_scale(sum, merge.split_weight[s][tid], max_lse);
      const float inverse = split_inverse(sum);
#pragma unroll 1
      for (int s = 0; s < splits; ++s)
        merge.split_weight[s][tid] = split_scale(merge.split_weight[s][tid], max_lse) * inverse;
      merge.combined_lse[tid] = split_lse(sum, max_lse);
    }
    __syncthreads();

    // The valid rows' 8-column chunks, dealt round-robin over the cluster (chunk c to rank c % splits), so
    // that every CTA combines a share even when the block has few valid rows (GQA 4, one token: 4 rows).
    const int chunks = valid_rows * Output::kChunksPerRow;
    for (int chunk = tid * splits + rank; chunk < chunks; chunk += Layouts::kThreads * splits) {
      const int r = chunk / Output::kChunksPerRow;
      const int col = chunk % Output::kChunksPerRow * 8;
      float o[8];
      CUTE_UNROLL
      for (int j = 0; j < 8; ++j) o[j] = 0.0f;
      for (int s = 0; s < splits; ++s) {
        const float weight = merge.split_weight[s][r];
        const float4* src = reinterpret_cast<const float4*>(cluster.map_shared_rank(&merge.o[0][r][col], s));
        const float4 lo = src[0];
        const float4 hi = src[1];
        o[0] += weight * lo.x;
        o[1] += weight * lo.y;
        o[2] += weight * lo.z;
        o[3] += weight * lo.w;
        o[4] += weight * hi.x;
        o[5] += weight * hi.y;
        o[6] += weight * hi.z;
        o[7] += weight * hi.w;
      }
      Output::store_chunk(params, batch, head_kv, row0 + r, col, o);
    }
    if (rank == 0 && tid < valid_rows) {
      Output::store_lse(params, batch, head_kv, row0 + tid, merge.combined_lse[tid]);
    }
    cluster.sync();  // the other CTAs are done reading this one's shared memory
#else
    // Unreachable: the launcher takes the cluster path only for a kernel compiled for compute_90 or newer
    // (kernel_ptx_version). Should that ever fail, stop loudly rather than leave out unwritten.
    (void)params, (void)smem, (void)batch, (void)head_kv, (void)row0;
    __trap();
#endif
  }
};

}  // namespace flashattn::cuda::decode
