// flashattn — the split combine through global memory, inside the decode kernel: every split CTA of a work
// item (batch, kv head, row block) writes its partial state (normalised O in fp32 and its lse) to the
// workspace and counts itself in the work item's arrival counter; the CTA that arrives last merges the
// item's rows over all splits with the log-sum-exp merge of epilogue_decode_sm80.cuh, in split order
// (deterministic), and writes out in the dtype and lse. No second kernel: the merge starts as soon as the
// item's last split is done, not at the end of the whole grid (a combine kernel waited for the grid's last
// CTA, its launch and three dependent rounds of partial loads: ~3 µs of B 1 L 32k's 55, docs/PERF.md).
//
// The counters must read 0 when the grid starts: the step before the decode kernel clears them
// (append_kvcache.cuh), and the kernel reads them only after griddepcontrol.wait (a no-op unless it was
// launched as that step's programmatic dependent), so a caller's workspace may hold anything.
//
// Per row, one warp: the lanes find the largest lse and the weights' sum together (split_weights.cuh, the
// cluster combine's order, so both paths agree bit for bit), then each lane accumulates its 4-column
// groups of O over the splits, loading a batch of splits' partials before merging them.
#pragma once

#include <cmath>
#include <cstdint>

#include <cutlass/array.h>
#include <cuda/atomic>

#include "cuda/decode/decode_kernel_params.hpp"
#include "cuda/decode/layouts_decode_sm80.cuh"
#include "cuda/decode/split_weights.cuh"

namespace flashattn::cuda::decode {

/// Merges query row `row` (index (b * H + h) * Sq + t among a split's partial rows) over the splits and
/// writes it to `out` (Dv elements) and, when `lse` is not null, *lse. All 32 lanes of the warp call it.
template <class Element, int kHeadDimV>
__device__ __forceinline__ void combine_split_row(const DecodeKernelParams& params, std::int64_t row,
                                                  Element* out, float* lse_out, int lane) {
  constexpr int kGroups = kHeadDimV / 4;  ///< float4 column groups of a row.
  constexpr int kGroupsPerLane = (kGroups + 31) / 32;
  static_assert(kHeadDimV % 4 == 0, "rows are float4 groups");
  const int splits = params.num_splits;
  // The other splits' partials were written by other CTAs of this grid: loads at L2 (ld.global.cg), never
  // from this SM's L1.
  const float* lse_partial = params.lse_partial + row;  // split s at lse_partial[s * partial_rows]

  // The row's lse, max and weight sum in split_weights.cuh's order: split s on lane s % 16 (both halves of
  // the warp compute the same), as the cluster combine computes them.
  const int slot = lane % kSplitLanes;
  float max_lse = -INFINITY;
  for (int s = slot; s < splits; s += kSplitLanes)
    max_lse = fmaxf(max_lse, __ldcg(lse_partial + s * params.partial_rows));
  max_lse = half_warp_max(max_lse);
  float sum = 0.0f;
  for (int s = slot; s < splits; s += kSplitLanes)
    sum = add_split_scale(sum, __ldcg(lse_partial + s * params.partial_rows), max_lse);
  sum = half_warp_sum(sum);
  const float inverse = split_inverse(sum);

  float4 acc[kGroupsPerLane];
  for (int g = 0; g < kGroupsPerLane; ++g) acc[g] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  // The partials of kSplitBatch splits are loaded before any is merged, so their L2 round trips overlap:
  // with the loads and the merge in one unrolled loop the compiler kept two splits' loads in flight, and a
  // 32-split row paid 16 round trips. The merge stays in split order (the cluster combine's). An empty
  // split's O is 0 (finite) and weighs 0.
  constexpr int kSplitBatch = 16 / kGroupsPerLane;
  for (int s0 = 0; s0 < splits; s0 += kSplitBatch) {
    float lse[kSplitBatch];
    float4 v[kSplitBatch][kGroupsPerLane];
#pragma unroll
    for (int i = 0; i < kSplitBatch; ++i) {
      const int s = s0 + i;
      if (s < splits) {
        lse[i] = __ldcg(lse_partial + s * params.partial_rows);
        const float4* o =
            reinterpret_cast<const float4*>(params.o_partial + (s * params.partial_rows + row) * kHeadDimV);
#pragma unroll
        for (int g = 0; g < kGroupsPerLane; ++g) {
          const int group = lane + 32 * g;
          if (group < kGroups) v[i][g] = __ldcg(o + group);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kSplitBatch; ++i) {
      if (s0 + i < splits) {
        const float weight = split_scale(lse[i], max_lse) * inverse;
#pragma unroll
        for (int g = 0; g < kGroupsPerLane; ++g) {
          acc[g].x += weight * v[i][g].x;
          acc[g].y += weight * v[i][g].y;
          acc[g].z += weight * v[i][g].z;
          acc[g].w += weight * v[i][g].w;
        }
      }
    }
  }

#pragma unroll
  for (int g = 0; g < kGroupsPerLane; ++g) {
    const int group = lane + 32 * g;
    if (group < kGroups) {
      cutlass::Array<Element, 4> values;
      values[0] = static_cast<Element>(acc[g].x);
      values[1] = static_cast<Element>(acc[g].y);
      values[2] = static_cast<Element>(acc[g].z);
      values[3] = static_cast<Element>(acc[g].w);
      *reinterpret_cast<cutlass::Array<Element, 4>*>(out + 4 * group) = values;
    }
  }
  if (lane == 0 && lse_out != nullptr) *lse_out = split_lse(sum, max_lse);
}

template <class Element, int kHeadDim>
struct DecodeSplitCombine {
  using Layouts = DecodeLayouts<Element, kHeadDim>;

  /// Call from every thread of the CTA after its partial stores (epilogue_decode_sm80.cuh), with
  /// `work_item` = (batch * Hk + head_kv) * row_blocks + row block.
  __device__ __forceinline__ static void run(const DecodeKernelParams& params,
                                             typename Layouts::SharedStorage& smem, std::int64_t work_item,
                                             int batch, int head_kv, int row0) {
    __syncthreads();  // every thread's partial stores come before thread 0's release below
    if (threadIdx.x == 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      // The counters' clear by the step before: complete once that grid is (a no-op for an ordinary
      // launch, which stream order already put after it).
      asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
      // acq_rel at device scope: releases this CTA's partials (ordered before by the barrier) with the
      // count, and, for the last arrival, acquires every other split's partials released with theirs.
      ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> arrivals(params.split_counters[work_item]);
      const unsigned before = arrivals.fetch_add(1u, ::cuda::memory_order_acq_rel);
      smem.merge.last_split = before + 1 == static_cast<unsigned>(params.num_splits);
    }
    __syncthreads();  // orders the other threads' loads below after thread 0's acquire
    if (!smem.merge.last_split) return;

    const ForwardParams& p = params.fwd.problem;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int valid_rows = min(Layouts::kBlockM, params.rows - row0);
    for (int r = warp; r < valid_rows; r += Layouts::kWarps) {
      int token, head_in_group;
      params.token_and_head(row0 + r, token, head_in_group);
      const int head = head_kv * params.group + head_in_group;
      const std::int64_t row = (std::int64_t{batch} * p.heads + head) * params.seqlen_q + token;
      Element* out = static_cast<Element*>(p.out) + batch * p.out_strides.batch + token * p.out_strides.row +
                     head * p.out_strides.head;
      float* lse =
          p.lse != nullptr ? p.lse + batch * p.lse_batch_stride + head * p.lse_head_stride + token : nullptr;
      combine_split_row<Element, kHeadDim>(params, row, out, lse, lane);
    }
  }
};

}  // namespace flashattn::cuda::decode
