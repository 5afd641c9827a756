// flashattn — the key mask of DESIGN.md §1 for GQA-packed rows: packed row r is new token r / group, so a
// row's kept keys are KeyRange's interval of its token, and its ALiBi slope is its own query head's. The
// bounds of a thread's rows are found once per CTA; masking a tile then costs two int compares per score.
#pragma once

#include <cmath>
#include <cstdint>

#include <cutlass/fast_math.h>
#include <cute/tensor.hpp>

#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/common/mask.cuh"

namespace flashattn::cuda::decode {

template <int kRows>
class PackedRowMask {
 public:
  /// `coords` (kRows, COLS): the (row, column) within the CTA's tile of each score the thread holds; the
  /// tile's first packed row is `row0`; rows at or past `rows` are padding (clamped to the last row, their
  /// results are never stored). `slopes` holds the sequence's ALiBi slopes by query head (null: off).
  template <class Coords>
  __device__ __forceinline__ PackedRowMask(const Coords& coords, int row0, int rows,
                                           const cutlass::FastDivmod& group, int head0, const KeyRange& range,
                                           const float* slopes) {
    using namespace cute;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const int row = min(row0 + get<0>(coords(r, 0)), rows - 1);
      int token, head_in_group;
      group(token, head_in_group, row);
      begin_[r] = range.key_begin(token);
      end_[r] = range.key_end(token);
      diagonal_[r] = static_cast<int>(range.diagonal(token));
      slope_log2_[r] = slopes != nullptr ? slopes[head0 + head_in_group] * kLog2e : 0.0f;
    }
  }

  /// Masks (score = -inf) the scores of keys outside each row's interval and, when kAlibi, adds the bias
  /// -slope_log2 * |diagonal - key| (scores in the log2 domain). `key0` is the key of column 0.
  template <bool kAlibi, class Scores, class Coords>
  __device__ __forceinline__ void apply(Scores& scores, const Coords& coords, int key0) const {
    using namespace cute;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      CUTE_UNROLL
      for (int c = 0; c < size<1>(scores); ++c) {
        const int key = key0 + get<1>(coords(r, c));
        if constexpr (kAlibi) {
          // |i + offset - j| exact in fp32 below 2^24; int64 because diagonal - key may leave the int range.
          scores(r, c) -= slope_log2_[r] * fabsf(static_cast<float>(std::int64_t{diagonal_[r]} - key));
        }
        if (key < begin_[r] || key >= end_[r]) scores(r, c) = -INFINITY;
      }
    }
  }

 private:
  int begin_[kRows];
  int end_[kRows];
  int diagonal_[kRows];
  float slope_log2_[kRows];
};

}  // namespace flashattn::cuda::decode
