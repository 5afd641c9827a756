// flashattn — the split combine inside one thread-block cluster (sm90 and newer): when the num_splits CTAs of
// a (batch, kv head, row block) are launched as one cluster, each leaves its merged state (normalised O of
// the block's rows in fp32, and their lse) in its own shared memory, and after a cluster barrier every CTA
// reads all of them through distributed shared memory and writes its share of the block's output. The
// merge is combine_decode.cuh's, in the same split chains with the same weights exp(lse_s - max) / sum
// computed by the same code (split_weights.cuh), so the two paths agree bit for bit. It saves the partials'
// round trip through global memory and the combine kernel, which at small batches is most of a decode call's
// latency (B 1, L 1k: decode 11 µs, combine 5.8 µs under ncu; docs/PERF.md).
//
// Invariants: every CTA of the cluster reaches both cluster barriers (the kernel has no early exit), and no
// CTA leaves before the second, so no CTA's shared memory goes away while another reads it.
#pragma once

#include <cmath>
#include <utility>

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
  static_assert(kMaxClusterSplits <= kSplitLanes, "a row's splits fit the lanes of a half-warp");
  /// 8-column chunks of the block one thread combines at most (a cluster has at least 2 CTAs).
  static constexpr int kMaxChunks =
      (Layouts::kBlockM * Output::kChunksPerRow + 2 * Layouts::kThreads - 1) / (2 * Layouts::kThreads);

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

    // Each row's split weights, on a half-warp (split s on lane s, split_weights.cuh): one remote load per
    // lane, no serial loop. This code runs once per CTA, cold in the instruction cache, and the other warps
    // wait for it, so its length and latency are its cost (16 unrolled threads took ~30% of B 1 L 1k's time,
    // docs/PERF.md). Warp w takes the row pairs w, w + kWarps, ...; a lane past the valid rows computes
    // alongside (the shuffles need the whole warp) but writes nothing.
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int slot = lane % kSplitLanes;
    for (int pair = warp; 2 * pair < valid_rows; pair += Layouts::kWarps) {
      const int r = 2 * pair + lane / kSplitLanes;
      const float lse = slot < splits ? *cluster.map_shared_rank(&merge.merged_lse[r], slot) : -INFINITY;
      const float max_lse = half_warp_max(lse);
      const float sum = half_warp_sum(add_split_scale(0.0f, lse, max_lse));
      if (r < valid_rows) {
        if (slot < splits) merge.split_weight[slot][r] = split_scale(lse, max_lse) * split_inverse(sum);
        if (slot == 0) merge.combined_lse[r] = split_lse(sum, max_lse);
      }
    }
    __syncthreads();

    // The valid rows' 8-column chunks, dealt round-robin over the cluster (chunk c to rank c % splits), so
    // that every CTA combines a share even when the block has few valid rows (GQA 4, one token: 4 rows).
    // With splits >= 2 a thread has at most kMaxChunks of them; they wait in registers while the CTA tells
    // the cluster it is done reading (a release arrive: its remote loads are complete), so the stores to
    // global memory overlap the wait for the other CTAs instead of delaying it.
    const int chunks = valid_rows * Output::kChunksPerRow;
    float o[kMaxChunks][8];
    CUTE_UNROLL
    for (int i = 0; i < kMaxChunks; ++i) {
      const int chunk = (tid + i * Layouts::kThreads) * splits + rank;
      if (chunk >= chunks) break;
      const int r = chunk / Output::kChunksPerRow;
      const int col = chunk % Output::kChunksPerRow * 8;
      // Split s folds into chain s % kSplitChains, in split order (split_weights.cuh).
      float chains[kSplitChains][8];
      CUTE_UNROLL
      for (int k = 0; k < kSplitChains; ++k) {
        CUTE_UNROLL
        for (int j = 0; j < 8; ++j) chains[k][j] = 0.0f;
      }
      for (int s0 = 0; s0 < splits; s0 += kSplitChains) {
        CUTE_UNROLL
        for (int k = 0; k < kSplitChains; ++k) {
          const int s = s0 + k;
          if (s < splits) {
            const float weight = merge.split_weight[s][r];
            const float4* src =
                reinterpret_cast<const float4*>(cluster.map_shared_rank(&merge.o[0][r][col], s));
            const float4 lo = src[0];
            const float4 hi = src[1];
            chains[k][0] += weight * lo.x;
            chains[k][1] += weight * lo.y;
            chains[k][2] += weight * lo.z;
            chains[k][3] += weight * lo.w;
            chains[k][4] += weight * hi.x;
            chains[k][5] += weight * hi.y;
            chains[k][6] += weight * hi.z;
            chains[k][7] += weight * hi.w;
          }
        }
      }
      CUTE_UNROLL
      for (int j = 0; j < 8; ++j)
        o[i][j] = sum_split_chains(chains[0][j], chains[1][j], chains[2][j], chains[3][j]);
    }
    auto done_reading = cluster.barrier_arrive();
    CUTE_UNROLL
    for (int i = 0; i < kMaxChunks; ++i) {
      const int chunk = (tid + i * Layouts::kThreads) * splits + rank;
      if (chunk >= chunks) break;
      Output::store_chunk(params, batch, head_kv, row0 + chunk / Output::kChunksPerRow,
                          chunk % Output::kChunksPerRow * 8, o[i]);
    }
    if (rank == 0 && tid < valid_rows) {
      Output::store_lse(params, batch, head_kv, row0 + tid, merge.combined_lse[tid]);
    }
    // The other CTAs are done reading this one's shared memory (merge.combined_lse above is its own).
    cluster.barrier_wait(std::move(done_reading));
#else
    // Unreachable: the launcher takes the cluster path only for a kernel compiled for compute_90 or newer
    // (kernel_ptx_version). Should that ever fail, stop loudly rather than leave out unwritten.
    (void)params, (void)smem, (void)batch, (void)head_kv, (void)row0;
    __trap();
#endif
  }
};

}  // namespace flashattn::cuda::decode
