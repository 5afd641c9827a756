// flashattn — the key mask of DESIGN.md §1 (causal, sliding window, sequence end) and the ALiBi bias, for
// tiles of scores held in registers. Query row i keeps key j iff
//   i + offset - window_left <= j <= i + offset + window_right  and  j < seqlen_k,  offset = Sk - Sq,
// so the kept keys of a row are one interval [key_begin(i), key_end(i)) and both ends grow with i. Only
// tiles that cross an interval end pay for masking (the main loop finds them from key_begin / key_end of
// the block's last and first rows); the others are left untouched.
#pragma once

#include <cmath>
#include <cstdint>

#include <cute/tensor.hpp>

#include "core/params.hpp"

namespace flashattn::cuda {

class KeyRange {
 public:
  __device__ KeyRange(const ForwardParams& p, int seqlen_q, int seqlen_k)
      : offset_(std::int64_t{seqlen_k} - seqlen_q),
        left_(p.window_left),
        right_(p.window_right),
        seqlen_k_(seqlen_k) {}

  /// First key row `row` keeps (clamped to [0, seqlen_k]).
  __device__ int key_begin(int row) const { return clamp(row + offset_ - left_); }
  /// One past the last key row `row` keeps (clamped to [0, seqlen_k]); key_end <= key_begin: none kept.
  __device__ int key_end(int row) const { return clamp(row + offset_ + right_ + 1); }
  /// The diagonal key of `row`, i + offset: ALiBi penalises |diagonal - j|.
  __device__ std::int64_t diagonal(int row) const { return row + offset_; }

 private:
  __device__ int clamp(std::int64_t key) const {
    return static_cast<int>(key < 0 ? 0 : (key > seqlen_k_ ? seqlen_k_ : key));
  }

  std::int64_t offset_;
  std::int64_t left_;  ///< kUnboundedWindow when unbounded: the sums above cannot overflow int64.
  std::int64_t right_;
  int seqlen_k_;
};

/// Which ends of the rows' key intervals a tile of scores may cross. The caller knows per tile: the causal
/// diagonal and the sequence end cut only key_end, so those tiles skip the key_begin test.
enum class MaskEdges {
  end,   ///< Every column is >= every row's key_begin: only `col >= key_end` masks.
  both,  ///< Any column may fall outside either end (sliding windows, score mods).
};

/// Applies the mask (masked scores become -inf) and, when kAlibi, the bias -slope_log2 * |i + offset - j|
/// to a tile of scores in the log2 domain. `scores` is (ROWS, COLS) in registers; `coords` holds the
/// (row, column) of each element within the tile, whose first element is (row0, col0) of the sequence.
template <bool kAlibi, MaskEdges kEdges = MaskEdges::both, class Scores, class Coords>
__device__ __forceinline__ void mask_scores(Scores& scores, const Coords& coords, int row0, int col0,
                                            const KeyRange& range, float slope_log2) {
  using namespace cute;
  CUTE_UNROLL
  for (int r = 0; r < size<0>(scores); ++r) {
    const int row = row0 + get<0>(coords(r, 0));
    // Bounds relative to the tile's first column keep the per-element test to one int compare each.
    const int begin = range.key_begin(row) - col0;
    const int end = range.key_end(row) - col0;
    const std::int64_t diagonal = range.diagonal(row) - col0;
    CUTE_UNROLL
    for (int c = 0; c < size<1>(scores); ++c) {
      const int col = get<1>(coords(r, c));
      if constexpr (kAlibi) scores(r, c) -= slope_log2 * fabsf(static_cast<float>(diagonal - col));
      const bool outside = kEdges == MaskEdges::end ? col >= end : col < begin || col >= end;
      if (outside) scores(r, c) = -INFINITY;
    }
  }
}

}  // namespace flashattn::cuda
