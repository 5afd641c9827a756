// flashattn — moving tiles between the caller's strided fp16 / bf16 / fp32 tensors and the backend's
// fp32 scratch: widening loads (row-major or transposed into a lane tile) and rounding stores.
// Only rows inside the sequence are ever read, so NaN-poisoned padding never enters a computation.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/params.hpp"
#include "cpu/element_type.hpp"
#include "cpu/simd.hpp"
#include "cpu/tile_gemm.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

/// Token row `row` (relative to the sequence start) of head `head` of sequence `b` of an operand
/// addressed as described in core/params.hpp.
template <class T, class Pointer>
inline T* row_pointer(Pointer base, const OperandStrides& strides, int b, std::int64_t first_token,
                      std::int64_t row, int head) {
  return static_cast<T*>(base) + b * strides.batch + (first_token + row) * strides.row + head * strides.head;
}

/// dst[r * ld + c] = src[r * row_stride + c] for r < rows, c < cols.
template <class T>
inline void load_rows(const T* src, std::int64_t row_stride, int rows, int cols, float* dst,
                      std::int64_t ld) {
  for (int r = 0; r < rows; ++r) {
    const T* in = src + r * row_stride;
    float* out = dst + r * ld;
    for (int c = 0; c < cols; ++c) out[c] = to_float(in[c]);
  }
}

/// Asks the cache hierarchy for `rows` token rows of `cols` values ahead of their load_rows(). Token rows
/// of one head are usually a page apart (row stride H * D), which the hardware stream prefetchers do not
/// follow, so the next key block is requested while the current one is being computed.
template <class T>
inline void prefetch_rows(const T* src, std::int64_t row_stride, int rows, int cols) {
  constexpr int kLineElements = 64 / sizeof(T);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; c += kLineElements) __builtin_prefetch(src + r * row_stride + c);
  }
}

/// dst[r * cols + c] = row j0 + r, column c of head `head` of sequence b's keys or values (the k or v
/// tensor `base` with strides `s`), for r < n: runs of rows consecutive in memory (a page of a paged cache,
/// or all of them) are widened with load_rows.
template <class T>
inline void load_kv_rows(const ForwardParams& p, const void* base, const OperandStrides& s, int b,
                         std::int64_t j0, int n, int head, int cols, float* dst) {
  for (int r = 0; r < n;) {
    const int run = static_cast<int>(std::min<std::int64_t>(n - r, p.kv_rows_contiguous(j0 + r)));
    const T* src = static_cast<const T*>(base) + p.kv_row_offset(s, b, j0 + r) + head * s.head;
    load_rows(src, s.row, run, cols, dst + std::int64_t{r} * cols, cols);
    r += run;
  }
}

/// prefetch_rows for the rows that load_kv_rows(p, base, s, b, j0, n, head, cols, ...) will read.
template <class T>
inline void prefetch_kv_rows(const ForwardParams& p, const void* base, const OperandStrides& s, int b,
                             std::int64_t j0, int n, int head, int cols) {
  for (int r = 0; r < n;) {
    const int run = static_cast<int>(std::min<std::int64_t>(n - r, p.kv_rows_contiguous(j0 + r)));
    prefetch_rows(static_cast<const T*>(base) + p.kv_row_offset(s, b, j0 + r) + head * s.head, s.row, run,
                  cols);
    r += run;
  }
}

/// Transposes `rows` (<= kTileLanes) token rows of `cols` values into a lane tile:
/// dst[c * kTileLanes + r] = src[r * row_stride + c]; lanes r >= rows are set to 0.
template <class T>
inline void load_transposed(const T* src, std::int64_t row_stride, int rows, int cols, float* dst) {
  for (int c = 0; c < cols; ++c) {
    for (int r = rows; r < kTileLanes; ++r) dst[c * kTileLanes + r] = 0.0f;
  }
  for (int r = 0; r < rows; ++r) {
    const T* in = src + r * row_stride;
    for (int c = 0; c < cols; ++c) dst[c * kTileLanes + r] = to_float(in[c]);
  }
}

/// The inverse of load_transposed, with a per-lane factor: dst[r * row_stride + c] =
/// round(src[c * kTileLanes + r] * lane_factor[r]) for r < rows, c < cols.
template <class T>
inline void store_transposed(const float* src, const float* lane_factor, int rows, int cols, T* dst,
                             std::int64_t row_stride) {
  for (int r = 0; r < rows; ++r) {
    T* out = dst + r * row_stride;
    for (int c = 0; c < cols; ++c) out[c] = from_float<T>(src[c * kTileLanes + r] * lane_factor[r]);
  }
}

/// dst[r * row_stride + c] = 0 for r < rows, c < cols.
template <class T>
inline void store_zeros(int rows, int cols, T* dst, std::int64_t row_stride) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) dst[r * row_stride + c] = from_float<T>(0.0f);
  }
}

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
