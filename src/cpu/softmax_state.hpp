// flashattn — the online-softmax state of a row (float) or of 16 rows at once (Vec): the running
// maximum m and the running sum l = sum_j 2^(t_j - m) of the scores t seen so far, in the log2 domain
// (t = s * log2(e)), and the algebra that folds in a block of scores or merges two partial states.
//
// Invariant: an accumulator O paired with the state holds sum_j 2^(t_j - m) * v_j. An empty state
// (no score seen, or only masked scores) has m = -inf and l = 0. Every exponent the algebra forms is
// taken against a finite reference (m, or 0 while the row is still empty), so -inf - (-inf) = NaN never
// happens: an empty side contributes with factor exactly 0.
#pragma once

#include <cmath>
#include <limits>

#include "cpu/exp2.hpp"
#include "cpu/simd.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

template <class T>
struct SoftmaxState {
  static constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  T m = T{} + kNegInf;  ///< Running max of the scores (log2 domain); -inf while empty.
  T l = T{};            ///< Running sum of 2^(t - m).

  /// The finite value exponents are taken against: m, or 0 while the row is empty.
  static T reference_of(T max) { return select(max == kNegInf, T{}, max); }

  /// Starts folding in a block whose row maxima are `block_max` (-inf for a fully masked row). Returns
  /// the reference the block's scores must be exponentiated against (2^(t - reference), then add() the
  /// row sums) and sets `alpha` to the factor that rescales l (already applied) and the accumulators.
  T rescale(T block_max, T& alpha) {
    const T new_max = max(m, block_max);
    const T reference = reference_of(new_max);
    alpha = exp2(m - reference);
    l = l * alpha;
    m = new_max;
    return reference;
  }

  /// Adds the row sums of 2^(t - reference) of the block started by rescale().
  void add(T block_sum) { l = l + block_sum; }

  /// Merges `other` into this state; `alpha_self` and `alpha_other` rescale the two accumulators
  /// (O = alpha_self * O_self + alpha_other * O_other). Either side may be empty.
  void merge(const SoftmaxState& other, T& alpha_self, T& alpha_other) {
    const T new_max = max(m, other.m);
    const T reference = reference_of(new_max);
    alpha_self = exp2(m - reference);
    alpha_other = exp2(other.m - reference);
    l = l * alpha_self + other.l * alpha_other;
    m = new_max;
  }

  /// 1 / l, or 0 for an empty row (so that its output is exactly 0).
  T inverse_sum() const { return select(l > 0.0f, 1.0f / l, T{}); }
};

/// Natural-log log-sum-exp of a row, ln(sum_j e^(s_j)) = (m + log2(l)) * ln(2); -inf for an empty row.
inline float log_sum_exp(const SoftmaxState<float>& state) {
  constexpr float kLn2 = 0.693147180559945309f;
  if (!(state.l > 0.0f)) return -std::numeric_limits<float>::infinity();
  return (state.m + std::log2(state.l)) * kLn2;
}

/// Lane `lane` of a 16-row state as a one-row state.
inline SoftmaxState<float> lane_of(const SoftmaxState<Vec>& state, int lane) {
  return {state.m[lane], state.l[lane]};
}

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
