// flashattn — the split combine: each query row's num_splits partial states (normalised O in fp32 and its
// lse) merged with the log-sum-exp merge of epilogue_decode_sm80.cuh in split_weights.cuh's order (split s
// folds into chain s % kSplitChains; deterministic), and written to out in the dtype and to lse. One CTA per
// row, one warp per chain: every warp finds the row's largest lse and weight sum (split_weights.cuh), then
// each lane folds its chain's splits into its 4-column groups, and the chains meet in shared memory.
// Four chains rather than one warp per row: a lane's loads and its dependent FMA chain are a quarter as
// long (8 splits at 32), which is what the combine's time on the SM was (docs/PERF.md, session 50). On an
// H100 (session 52) the combine took 4.83 / 4.67 us at B 1 L 128k / B 4 L 32k under ncu against one warp a
// row's 6.43 / 5.41, and the calls where it runs gained 0.3-2.3% (B 1 L 32k the most).
// The first batch of splits' partials (lse and O) is loaded in one round, before any is used.
#pragma once

#include <cmath>
#include <cstdint>

#include <cutlass/array.h>

#include "core/kvcache_plan.hpp"
#include "cuda/decode/decode_kernel_params.hpp"
#include "cuda/decode/split_weights.cuh"

namespace flashattn::cuda::decode {

/// Threads of a combine CTA (one query row): a warp per split chain.
inline constexpr int kCombineThreads = kSplitChains * 32;

template <class Element, int kHeadDimV>
__global__ void __launch_bounds__(kCombineThreads)
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
  const std::int64_t row = blockIdx.x;  // the launch has one CTA per row
  const int chain = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
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

  // Every load the first kSplitBatch splits need is issued before any is used: the O of the chain's splits
  // chain, chain + kSplitChains, ..., and the row's lse dealt as split_weights.cuh deals them (split s on
  // lane s % 16, both halves of the warp alike; every warp holds all of them). The partials were written
  // just before this kernel and sit in L2, so a row of up to kSplitBatch splits pays one L2 round trip.
  constexpr int kChainBatch = 8 / kGroupsPerLane;  ///< Splits of its chain a lane holds: 8 float4 a lane.
  constexpr int kSplitBatch = kSplitChains * kChainBatch;
  constexpr int kLseSlots = kSplitBatch / kSplitLanes;  ///< lse values a lane holds for the first batch.
  static_assert(8 % kGroupsPerLane == 0, "a lane's float4 budget holds whole splits");
  static_assert(kSplitLanes % kSplitChains == 0, "split s of the batch sits in lse slot s / 16 = i / 4");
  static_assert(kSplitBatch % kSplitLanes == 0, "a batch deals whole half-warps of splits");
  static_assert(kSplitBatch == core::combine_splits_per_round(kHeadDimV), "the split rule's batch is this");
  const int slot = lane % kSplitLanes;
  float4 v[kChainBatch][kGroupsPerLane];
  float lse_held[kLseSlots];
#pragma unroll
  for (int i = 0; i < kChainBatch; ++i) {
    if (chain + kSplitChains * i < splits) load_o(chain + kSplitChains * i, v[i]);
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

  // The chain's O, its splits in split order; split s's lse comes from the lane that holds it (the batch's
  // split chain + 4i sits on lane 4 * (i % 4) + chain, slot i / 4). An empty split's O is 0 (finite) and
  // weighs 0.
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
  constexpr int kChainsPerSlotRound = kSplitLanes / kSplitChains;
#pragma unroll
  for (int i = 0; i < kChainBatch; ++i) {
    const float lse = __shfl_sync(0xffffffffu, lse_held[i / kChainsPerSlotRound],
                                  kSplitChains * (i % kChainsPerSlotRound) + chain);
    if (chain + kSplitChains * i < splits) merge(lse, v[i]);
  }
  // Rows of more splits (an explicit num_splits, or the automatic count past kSplitBatch) load the rest
  // kSplitBatch at a time, each batch's lse and O in one round.
  for (int s0 = kSplitBatch + chain; s0 < splits; s0 += kSplitBatch) {
    float lse[kChainBatch];
    float4 rest[kChainBatch][kGroupsPerLane];
#pragma unroll
    for (int i = 0; i < kChainBatch; ++i) {
      const int s = s0 + kSplitChains * i;
      if (s < splits) {
        lse[i] = lse_partial[s * params.partial_rows];
        load_o(s, rest[i]);
      }
    }
#pragma unroll
    for (int i = 0; i < kChainBatch; ++i) {
      if (s0 + kSplitChains * i < splits) merge(lse[i], rest[i]);
    }
  }

  // The chains meet in chain 0's warp, in split_weights.cuh's order.
  __shared__ float4 chains[kSplitChains - 1][kGroupsPerLane][32];
  if (chain > 0) {
#pragma unroll
    for (int g = 0; g < kGroupsPerLane; ++g) chains[chain - 1][g][lane] = acc[g];
  }
  __syncthreads();
  if (chain > 0) return;
  const int token = static_cast<int>(row % params.seqlen_q);
  const int head = static_cast<int>(row / params.seqlen_q % p.heads);
  const int batch = static_cast<int>(row / params.seqlen_q / p.heads);
  Element* out = static_cast<Element*>(p.out) + batch * p.out_strides.batch + token * p.out_strides.row +
                 head * p.out_strides.head;
#pragma unroll
  for (int g = 0; g < kGroupsPerLane; ++g) {
    const int group = lane + 32 * g;
    if (group < kGroups) {
      const float4 c1 = chains[0][g][lane];
      const float4 c2 = chains[1][g][lane];
      const float4 c3 = chains[2][g][lane];
      cutlass::Array<Element, 4> values;
      values[0] = static_cast<Element>(sum_split_chains(acc[g].x, c1.x, c2.x, c3.x));
      values[1] = static_cast<Element>(sum_split_chains(acc[g].y, c1.y, c2.y, c3.y));
      values[2] = static_cast<Element>(sum_split_chains(acc[g].z, c1.z, c2.z, c3.z));
      values[3] = static_cast<Element>(sum_split_chains(acc[g].w, c1.w, c2.w, c3.w));
      *reinterpret_cast<cutlass::Array<Element, 4>*>(out + 4 * group) = values;
    }
  }
  if (lane == 0 && p.lse != nullptr) {
    p.lse[batch * p.lse_batch_stride + head * p.lse_head_stride + token] = split_lse(sum, max_lse);
  }
}

}  // namespace flashattn::cuda::decode
