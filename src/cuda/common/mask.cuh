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
  KeyRange() = default;
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

/// A block's rows are query rows of one head: row i is token i.
struct RowIsToken {
  __device__ __forceinline__ int operator()(int row) const { return row; }
};

/// The kept key interval of each query row one thread holds, found once per block, so that masking a tile
/// in the main loop costs two int compares per score and no 64-bit arithmetic. Every bound fits an int:
/// key_begin and key_end lie in [0, seqlen_k], and the diagonal i + Sk - Sq of a row i < Sq in [-Sq, Sk).
template <int kRows>
class RowKeyIntervals {
 public:
  /// `coords` (kRows, COLS) holds the (row, column) within the block of each score the thread holds; the
  /// block's first row is row `row0` of the sequence, and `row_token(row)` the query row (token) whose
  /// interval a row takes (GQA-packed rows: row / group), non-decreasing in the row.
  template <class Coords, class RowToToken = RowIsToken>
  __device__ __forceinline__ RowKeyIntervals(const Coords& coords, int row0, const KeyRange& range,
                                             const RowToToken& row_token = {}) {
    using namespace cute;
    static_assert(decltype(size<0>(coords))::value == kRows);
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const int token = row_token(row0 + get<0>(coords(r, 0)));
      begin_[r] = range.key_begin(token);
      end_[r] = range.key_end(token);
      diagonal_[r] = static_cast<int>(range.diagonal(token));
    }
  }

  /// Applies the mask (masked scores become -inf) and, when kAlibi, the bias -slope_log2 * |i + offset - j|
  /// to the tile of scores (log2 domain, (kRows, COLS) in registers) whose first column is key col0.
  template <bool kAlibi, MaskEdges kEdges = MaskEdges::both, class Scores, class Coords>
  __device__ __forceinline__ void apply(Scores& scores, const Coords& coords, int col0, float slope_log2) const {
    using namespace cute;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      // Bounds relative to the tile's first column keep the per-element test to one int compare each.
      const int begin = begin_[r] - col0;
      const int end = end_[r] - col0;
      // ALiBi distance of the row's first score (int64: diagonal - col0 may leave the int range when
      // Sq + Sk >= 2^31); the other columns differ from it by compile-time offsets, so each score costs one
      // FADD and one FFMA. Exact while |distance| < 2^24, then within fp32 rounding of the bias.
      const int col_first = get<1>(coords(r, 0));
      const float distance_first =
          kAlibi ? static_cast<float>(std::int64_t{diagonal_[r]} - col0 - col_first) : 0.0f;
      CUTE_UNROLL
      for (int c = 0; c < size<1>(scores); ++c) {
        const int col = get<1>(coords(r, c));
        if constexpr (kAlibi) {
          scores(r, c) -= slope_log2 * fabsf(distance_first - static_cast<float>(col - col_first));
        }
        const bool outside = kEdges == MaskEdges::end ? col >= end : col < begin || col >= end;
        if (outside) scores(r, c) = -INFINITY;
      }
    }
  }

 private:
  int begin_[kRows];
  int end_[kRows];
  int diagonal_[kRows];
};

/// Masks one tile without precomputed intervals (see RowKeyIntervals::apply): `coords` holds the
/// (row, column) of each element within the tile, whose first element is (row0, col0) of the sequence.
template <bool kAlibi, MaskEdges kEdges = MaskEdges::both, class Scores, class Coords>
__device__ __forceinline__ void mask_scores(Scores& scores, const Coords& coords, int row0, int col0,
                                            const KeyRange& range, float slope_log2) {
  constexpr int kRows = decltype(cute::size<0>(scores))::value;
  RowKeyIntervals<kRows>(coords, row0, range).template apply<kAlibi, kEdges>(scores, coords, col0, slope_log2);
}

}  // namespace flashattn::cuda
