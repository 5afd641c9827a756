// flashattn — the split combine: each query row's num_splits partial states (normalised O in fp32 and its
// lse) merged with the log-sum-exp merge of epilogue_decode_sm80.cuh, in split order (deterministic), and
// written to out in the dtype and to lse. One warp per row: the lanes find the largest lse and the weights'
// sum together (split_weights.cuh), then each lane accumulates its 4-column groups of O over the splits.
// The first batch of splits' partials (lse and O) is loaded in one round, before any is used.
#pragma once

#include <cmath>
#include <cstdint>

#include <cutlass/array.h>

#include "core/kvcache_plan.hpp"
#include "cuda/decode/decode_kernel_params.hpp"
#include "cuda/decode/split_weights.cuh"

namespace flashattn::cuda::decode {

template <class Element, int kHeadDimV, int kWarps>
__global__ void __launch_bounds__(kWarps * 32)
    combine_decode_kernel(const __grid_constant__ DecodeKernelParams params) {
  constexpr int kGroups = kHeadDimV / 4;  ///< float4 column groups of a row.
  constexpr int kGroupsPerLane = (kGroups + 31) / 32;
  static_assert(kHeadDimV % 4 == 0, "rows are float4 groups");
  const ForwardParams& p = params.fwd.problem;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched as a programmatic dependent of the decode kernel (sm90+): this CTA may start before the decode
  // grid ends, so it waits here for that grid's completion and memory before reading any partial. A
  // no-op for an ordinary launch.
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const std::int64_t row = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= params.partial_rows) return;
  const int splits = params.num_splits;
  const float* lse_partial = params.lse_partial + row;  // split s at lse_partial[s * partial_rows]
  // Split s's partial O of this row: the lane's 4-column groups.
  const auto load_o = [&](int s, float4(&o)[kGroupsPerLane]) {
    const float4* partial =
        reinterpret_cast<const float4*>(params.o_partial + (s * params.partial_rows + row) * kHeadDimV);
#pragma unroll
    for (int g = 0; g < kGroupsPerLane; ++g) {
      if (lane + 32 * g < kGroups) o[g] = partial[lane + 32 * g];
    }
  };

  // Every load the first kSplitBatch splits need is issued before any is used: their O, and their lse
  // dealt as split_weights.cuh deals them (split s on lane s % 16, both halves of the warp alike). The
  // partials were written just before this kernel and sit in L2, so a row of up to kSplitBatch splits
  // pays one L2 round trip where loading the lse, then its weights, then the O in batches paid four.
  constexpr int kSplitBatch = 32 / kGroupsPerLane;
  constexpr int kLseSlots = kSplitBatch / kSplitLanes;  ///< lse values a lane holds for the first batch.
  static_assert(kSplitBatch % kSplitLanes == 0, "a batch deals whole half-warps of splits");
  static_assert(kSplitBatch == core::combine_splits_per_round(kHeadDimV), "the split rule's batch is this");
  const int slot = lane % kSplitLanes;
  float4 v[kSplitBatch][kGroupsPerLane];
  float lse_held[kLseSlots];
#pragma unroll
  for (int i = 0; i < kSplitBatch; ++i) {
    if (i < splits) load_o(i, v[i]);
  }
#pragma unroll
  for (int k = 0; k < kLseSlots; ++k) {
    const int s = slot + kSplitLanes * k;
    lse_held[k] = s < splits ? lse_partial[s * params.partial_rows] : -INFINITY;
  }

  // The row's lse maximum and weight sum in split_weights.cuh's order (each lane folds its splits in split
  // order: the held ones, then those past the first batch), as the cluster combine computes them.
  float max_lse = -INFINITY;
#pragma unroll
  for (int k = 0; k < kLseSlots; ++k) max_lse = fmaxf(max_lse, lse_held[k]);
  for (int s = slot + kSplitBatch; s < splits; s += kSplitLanes)
    max_lse = fmaxf(max_lse, lse_partial[s * params.partial_rows]);
  max_lse = half_warp_max(max_lse);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kLseSlots; ++k) {
    if (slot + kSplitLanes * k < splits) sum = add_split_scale(sum, lse_held[k], max_lse);
  }
  for (int s = slot + kSplitBatch; s < splits; s += kSplitLanes)
    sum = add_split_scale(sum, lse_partial[s * params.partial_rows], max_lse);
  sum = half_warp_sum(sum);
  const float inverse = split_inverse(sum);

  // O merged in split order; split i's lse comes from the lane that holds it. An empty split's O is 0
  // (finite) and weighs 0.
  float4 acc[kGroupsPerLane];
  for (int g = 0; g < kGroupsPerLane; ++g) acc[g] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const auto merge = [&](float lse, const float4(&o)[kGroupsPerLane]) {
    const float weight = split_scale(lse, max_lse) * inverse;
#pragma unroll
    for (int g = 0; g < kGroupsPerLane; ++g) {
      acc[g].x += weight * o[g].x;
      acc[g].y += weight * o[g].y;
      acc[g].z += weight * o[g].z;
      acc[g].w += weight * o[g].w;
    }
  };
#pragma unroll
  for (int i = 0; i < kSplitBatch; ++i) {
    const float lse = __shfl_sync(0xffffffffu, lse_held[i / kSplitLanes], i % kSplitLanes);
    if (i < splits) merge(lse, v[i]);
  }
  // Rows of more splits (an explicit num_splits, or the automatic count past kSplitBatch) load the rest
  // kRestBatch at a time, each batch's lse and O in one round.
  constexpr int kRestBatch = kSplitBatch / 2;
  for (int s0 = kSplitBatch; s0 < splits; s0 += kRestBatch) {
    float lse[kRestBatch];
    float4 rest[kRestBatch][kGroupsPerLane];
#pragma unroll
    for (int i = 0; i < kRestBatch; ++i) {
      const int s = s0 + i;
      if (s < splits) {
        lse[i] = lse_partial[s * params.partial_rows];
        load_o(s, rest[i]);
      }
    }
#pragma unroll
    for (int i = 0; i < kRestBatch; ++i) {
      if (s0 + i < splits) merge(lse[i], rest[i]);
    }
  }

  const int token = static_cast<int>(row % params.seqlen_q);
  const int head = static_cast<int>(row / params.seqlen_q % p.heads);
  const int batch = static_cast<int>(row / params.seqlen_q / p.heads);
  Element* out = static_cast<Element*>(p.out) + batch * p.out_strides.batch + token * p.out_strides.row +
                 head * p.out_strides.head;
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
  if (lane == 0 && p.lse != nullptr) {
    p.lse[batch * p.lse_batch_stride + head * p.lse_head_stride + token] = split_lse(sum, max_lse);
  }
}

}  // namespace flashattn::cuda::decode
