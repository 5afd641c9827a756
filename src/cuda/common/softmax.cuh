// flashattn — the online-softmax state of a block of query rows, held in registers by the threads of an
// mma.sync accumulator (a row's columns are spread over the 4 lanes of a quad).
//
// Scores x arrive in a domain whose log2-domain value is t = x * scale_log2 (scale_log2 > 0, fixed for the
// whole run: the raw q·k with scale_log2 = scale * log2(e), or t itself with scale_log2 = 1 when the kernel
// already transformed the scores), so each exponential is one FFMA + exp2 and the natural-log lse is
// (max * scale_log2 + log2(sum)) * ln(2). Invariants per row after each update:
//   row_max = max of all x seen (-inf while every score was masked),
//   row_sum = this thread's share of sum exp2(t - t_max),  acc_o = sum exp2(t - t_max) * v.
// A row that never sees an unmasked key ends with sum 0: finalize() gives it out = 0 and lse = -inf.
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "core/exp2_polynomial.hpp"

namespace flashattn::cuda {

/// 2^x with the MUFU.EX2 unit (2 ulp; flushes denormal results to zero, which the softmax never needs).
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// log2(x) with the MUFU.LG2 unit (absolute error below 2^-22; log2(0) = -inf; flushes denormal inputs,
/// which finalize() never passes: its row sums are 0 or at least 1).
__device__ __forceinline__ float log2_approx(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// 1 / x with the MUFU.RCP unit (1 ulp; finalize() passes row sums of at least 1). Its error is far below
/// the rounding of O to 16 bits; the full-precision division costs a Newton step and a slow-path branch.
__device__ __forceinline__ float reciprocal_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// Reduces over the 4 lanes of a quad, which hold the columns of the same accumulator rows.
template <class Op>
__device__ __forceinline__ float quad_allreduce(float value, Op op) {
  value = op(value, __shfl_xor_sync(0xffffffffu, value, 1));
  return op(value, __shfl_xor_sync(0xffffffffu, value, 2));
}

/// kExp2OnFmaPeriod > 0: in every row, the scores of this thread's columns c with c % kExp2OnFmaPeriod ==
/// kExp2OnFmaPeriod - 1 are exponentiated by core::exp2_polynomial instead of the MUFU unit (a kernel whose
/// softmax is bound by MUFU throughput: FwdTileSm90::exp2_on_fma_period).
template <int kRows, int kExp2OnFmaPeriod = 0>
class OnlineSoftmax {
  static constexpr int kPeriod = kExp2OnFmaPeriod > 0 ? kExp2OnFmaPeriod : 1;

 public:
  __device__ explicit OnlineSoftmax(float scale_log2) : scale_log2_(scale_log2) {
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      row_max_[r] = -INFINITY;
      row_sum_[r] = 0.0f;
    }
  }

  /// How O must be rescaled after a tile moved the row maxima: acc_o(r, :) *= factor[r]. `needed` is
  /// uniform over the warp and false when no row of the warp changed its max (every factor is then
  /// exactly 1), which is most tiles of a long sequence.
  struct Rescale {
    float factor[kRows];
    bool needed;
  };

  /// Folds one tile of scores into the state: `scores` (kRows, COLS) becomes the unnormalised
  /// probabilities exp2(t - t_max); `acc_o` (kRows, HEAD_DIM) is rescaled to the new max. Every lane of
  /// the warp must call it together.
  template <class Scores, class AccO>
  __device__ __forceinline__ void update(Scores& scores, AccO& acc_o) {
    const Rescale rescale = fold(scores);
    apply(rescale, acc_o);
  }

  /// The first half of update(), for callers whose O is still being written by the tensor cores: folds
  /// the tile into the row maxima and sums and returns how O must be rescaled once it can be touched.
  /// kFirst: the state is fresh (this is the block's first tile) and O still zero: no rescale.
  template <bool kFirst = false, class Scores>
  __device__ __forceinline__ Rescale fold(Scores& scores) {
    using namespace cute;
    static_assert(decltype(size<0>(scores))::value == kRows);
    Rescale rescale;
    bool max_changed = false;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      float tile_max = scores(r, 0);
      CUTE_UNROLL
      for (int c = 1; c < size<1>(scores); ++c) tile_max = fmaxf(tile_max, scores(r, c));
      tile_max = quad_allreduce(tile_max, [](float a, float b) { return fmaxf(a, b); });
      const float new_max = fmaxf(row_max_[r], tile_max);
      // A row with every key masked so far keeps max -inf; subtract 0 instead so exp2 sees -inf, not NaN.
      const float base = new_max == -INFINITY ? 0.0f : new_max * scale_log2_;
      if constexpr (kFirst) {
        rescale.factor[r] = 1.0f;
      } else {
        rescale.factor[r] = exp2_approx(row_max_[r] * scale_log2_ - base);
        max_changed |= rescale.factor[r] != 1.0f;
      }
      row_max_[r] = new_max;
      float tile_sum = 0.0f;
      CUTE_UNROLL
      for (int c = 0; c < size<1>(scores); ++c) {
        const float x = scores(r, c) * scale_log2_ - base;
        scores(r, c) =
            kExp2OnFmaPeriod > 0 && c % kPeriod == kPeriod - 1 ? core::exp2_polynomial(x) : exp2_approx(x);
        tile_sum += scores(r, c);
      }
      row_sum_[r] = kFirst ? tile_sum : row_sum_[r] * rescale.factor[r] + tile_sum;
    }
    rescale.needed = kFirst ? false : __any_sync(0xffffffffu, max_changed);
    return rescale;
  }

  /// The second half of update(): rescales `acc_o` (kRows, HEAD_DIM) as fold() asked.
  template <class AccO>
  __device__ __forceinline__ static void apply(const Rescale& rescale, AccO& acc_o) {
    using namespace cute;
    static_assert(decltype(size<0>(acc_o))::value == kRows);
    if (!rescale.needed) return;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      CUTE_UNROLL
      for (int c = 0; c < size<1>(acc_o); ++c) acc_o(r, c) *= rescale.factor[r];
    }
  }

  /// Normalises `acc_o` (kRows, HEAD_DIM) and returns each row's natural-log lse in `lse`.
  template <class AccO>
  __device__ __forceinline__ void finalize(AccO& acc_o, float (&lse)[kRows]) {
    using namespace cute;
    constexpr float kLn2 = 0.69314718055994530942f;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const float sum = quad_allreduce(row_sum_[r], [](float a, float b) { return a + b; });
      // sum >= 1 whenever a key was kept (the max's own term is exp2(0)); 0 exactly when none was.
      const float inverse = sum > 0.0f ? reciprocal_approx(sum) : 0.0f;
      // A row without keys has max -inf and sum 0, whose log2 is -inf: its lse comes out -inf unselected.
      lse[r] = (row_max_[r] * scale_log2_ + log2_approx(sum)) * kLn2;
      CUTE_UNROLL
      for (int c = 0; c < size<1>(acc_o); ++c) acc_o(r, c) *= inverse;
    }
  }

 private:
  float scale_log2_;
  float row_max_[kRows];
  float row_sum_[kRows];
};

}  // namespace flashattn::cuda
