// flashattn — the key mask of DESIGN.md §1 and the ALiBi bias for the transposed score tiles of the Hopper
// backward, Sᵀ (rows = keys, columns = query rows). Query row i keeps key j iff
//   i + offset - window_left <= j <= i + offset + window_right  and  j < seqlen_k,  offset = Sk - Sq,
// so, read from the key's side, key j < seqlen_k is kept by the query rows of one interval
//   [j - offset - window_right, j - offset + window_left + 1)  (clamped to [0, seqlen_q]),
// and a key at or past seqlen_k by none. Rows past seqlen_q are outside every interval as well.
#pragma once

#include <cmath>
#include <cstdint>

#include <cute/tensor.hpp>

#include "core/params.hpp"

namespace flashattn::cuda::sm90 {

/// The query interval of each key row one thread holds, found once per CTA (the keys are fixed), so that
/// masking a step costs two int compares per score.
template <int kRows>
class KeyRowQueryIntervals {
 public:
  /// `coords` (kRows, COLS) holds the (key, query row) within the tile of each score the thread holds; the
  /// tile's first key is key n0 of the sequence.
  template <class Coords>
  __device__ __forceinline__ KeyRowQueryIntervals(const ForwardParams& p, const Coords& coords, int n0,
                                                  int seqlen_q, int seqlen_k) {
    using namespace cute;
    static_assert(decltype(size<0>(coords))::value == kRows);
    const std::int64_t offset = std::int64_t{seqlen_k} - seqlen_q;
    auto clamp = [seqlen_q](std::int64_t row) {
      return static_cast<int>(row < 0 ? 0 : (row > seqlen_q ? seqlen_q : row));
    };
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const int key = n0 + get<0>(coords(r, 0));
      // Window sides may be kUnboundedWindow (2^40): int64 sums cannot overflow.
      const bool valid = key < seqlen_k;
      begin_[r] = valid ? clamp(key - offset - p.window_right) : 0;
      end_[r] = valid ? clamp(key - offset + p.window_left + 1) : 0;
      diagonal_[r] = key - offset;
    }
  }

  /// Applies the mask (masked scores become -inf, NaN included) and, when kAlibi, the bias
  /// -slope_log2 * |i + offset - j| to the tile of scores (log2 domain, (kRows, COLS) in registers) whose
  /// first column is query row m0.
  template <bool kAlibi, class Scores, class Coords>
  __device__ __forceinline__ void apply(Scores& scores, const Coords& coords, int m0,
                                        float slope_log2) const {
    using namespace cute;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const int begin = begin_[r] - m0;
      const int end = end_[r] - m0;
      // ALiBi distance of the row's first score; the other columns differ by compile-time offsets.
      const int col_first = get<1>(coords(r, 0));
      const float distance_first =
          kAlibi ? static_cast<float>(std::int64_t{m0} + col_first - diagonal_[r]) : 0.0f;
      CUTE_UNROLL
      for (int c = 0; c < size<1>(scores); ++c) {
        const int col = get<1>(coords(r, c));
        if constexpr (kAlibi) {
          scores(r, c) -= slope_log2 * fabsf(distance_first + static_cast<float>(col - col_first));
        }
        if (col < begin || col >= end) scores(r, c) = -INFINITY;
      }
    }
  }

 private:
  int begin_[kRows];
  int end_[kRows];
  std::int64_t diagonal_[kRows];  ///< j - offset: row i is |i - diagonal| from the key's diagonal.
};

}  // namespace flashattn::cuda::sm90
