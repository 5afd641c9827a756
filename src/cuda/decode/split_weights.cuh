// flashattn — the split combine's weight arithmetic, shared by its two paths: the combine kernel
// (combine_decode.cuh) and the decode kernel's thread-block cluster (cluster_combine_decode.cuh). Which
// path a call takes depends on the whole grid (its clusters must all be resident), and a sequence's result
// must not depend on its batch neighbours, so both compute every weight, sum and lse with these same
// operations in the same order and agree bit for bit.
//
// The order: a row's splits are dealt to the 16 lanes of a half-warp (split s to lane s % 16), each lane
// folds its splits in split order, and the lanes' partial sums meet in an xor butterfly (offsets 8, 4, 2,
// 1). Every step adds the same two values on both partners (a + b = b + a exactly), so all 16 lanes end
// with the same bits; with at most 16 splits (the cluster's limit) no lane folds more than one split.
// The weighted O: split s folds into chain s % kSplitChains, each chain in split order (o += weight * x, one
// FMA a split), and the chains are added as sum_split_chains adds them.
#pragma once

#include <cmath>

namespace flashattn::cuda::decode {

inline constexpr int kSplitLanes = 16;  ///< Lanes of the half-warp that holds one row's splits.
inline constexpr int kSplitChains = 4;  ///< Chains the weighted O of a row's splits is folded in.

/// exp(lse - max_lse), a split's weight before normalisation; 0 for a split that kept no key (lse = -inf),
/// also when no split did (max_lse = -inf).
__device__ __forceinline__ float split_scale(float lse, float max_lse) {
  return lse == -INFINITY ? 0.0f : expf(lse - max_lse);
}

/// sum + split_scale(lse, max_lse), rounded as an addition of its own: never contracted into an FMA with
/// the exponential's last multiply, whichever way the surrounding code is compiled.
__device__ __forceinline__ float add_split_scale(float sum, float lse, float max_lse) {
  return __fadd_rn(sum, split_scale(lse, max_lse));
}

/// The largest of the half-warp's 16 values, on every lane (all 32 lanes of the warp must call it).
__device__ __forceinline__ float half_warp_max(float value) {
  for (int offset = kSplitLanes / 2; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

/// The half-warp's 16 partial sums added in the butterfly order, the same bits on every lane (all 32 lanes
/// of the warp must call it).
__device__ __forceinline__ float half_warp_sum(float value) {
  for (int offset = kSplitLanes / 2; offset > 0; offset /= 2)
    value = __fadd_rn(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

/// The row's O from its chains' sums (chain k holds splits k, k + 4, ...): (c0 + c1) + (c2 + c3), each
/// addition rounded on its own. A chain without splits is 0, which adds exactly.
__device__ __forceinline__ float sum_split_chains(float c0, float c1, float c2, float c3) {
  static_assert(kSplitChains == 4, "the chains' sum is written for four");
  return __fadd_rn(__fadd_rn(c0, c1), __fadd_rn(c2, c3));
}

/// 1 / sum of the scales, or 0 when no split kept a key (then out = 0 and lse = -inf, as for a row with
/// no key in one pass).
__device__ __forceinline__ float split_inverse(float sum) { return sum > 0.0f ? 1.0f / sum : 0.0f; }
__device__ __forceinline__ float split_lse(float sum, float max_lse) {
  return sum > 0.0f ? max_lse + logf(sum) : -INFINITY;
}

}  // namespace flashattn::cuda::decode
