// flashattn — the split combine: each query row's num_splits partial states (normalised O in fp32 and its
// lse) merged with the log-sum-exp merge of epilogue_decode_sm80.cuh, in split order (deterministic), and
// written to out in the dtype and to lse. One warp per row: the lanes find the largest lse and the weights'
// sum together (split_weights.cuh), then each lane accumulates its 4-column groups of O over the splits,
// loading a batch of splits' partials before merging them.
#pragma once

#include <cmath>
#include <cstdint>

#include <cutlass/array.h>

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

  // The row's lse, max and weight sum in split_weights.cuh's order: split s on lane s % 16 (both halves of
  // the warp compute the same), as the cluster combine computes them.
  const int slot = lane % kSplitLanes;
  float max_lse = -INFINITY;
  for (int s = slot; s < splits; s += kSplitLanes)
    max_lse = fmaxf(max_lse, lse_partial[s * params.partial_rows]);
  max_lse = half_warp_max(max_lse);
  float sum = 0.0f;
  for (int s = slot; s < splits; s += kSplitLanes)
    sum = add_split_scale(sum, lse_partial[s * params.partial_rows], max_lse);
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
        lse[i] = lse_partial[s * params.partial_rows];
        const float4* o =
            reinterpret_cast<const float4*>(params.o_partial + (s * params.partial_rows + row) * kHeadDimV);
#pragma unroll
        for (int g = 0; g < kGroupsPerLane; ++g) {
          const int group = lane + 32 * g;
          if (group < kGroups) v[i][g] = o[group];
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
