// flashattn — where the decode kernel finds a key/value row of its sequence's cache: through the page
// table (any page size >= 1) or in a dense cache entry (cache_batch_idx). Same addressing as
// ForwardParams::kv_row_offset, in 32-bit row arithmetic: rows and page sizes are below 2^31 (validated).
// A paged row costs a multiply-shift divide (FastDivmod, from the host) and one page-table load (read-only
// path, L1-cached: the rows of a page share it); a dense row is a fixed step from the row before it.
#pragma once

#include <cstdint>

#include <cutlass/fast_math.h>

#include "core/params.hpp"

namespace flashattn::cuda::decode {

class CacheRows {
 public:
  /// The rows of sequence b, kv head hk; `page_divmod` divides by p.page_size (unused for a dense cache).
  __device__ CacheRows(const ForwardParams& p, const cutlass::FastDivmod& page_divmod, int b, int hk)
      : pages_(p.page_table != nullptr ? p.page_table + b * p.page_table_batch_stride : nullptr),
        page_divmod_(page_divmod),
        k_page_stride_(p.k_strides.batch),
        v_page_stride_(p.v_strides.batch),
        k_row_stride_(p.k_strides.row),
        v_row_stride_(p.v_strides.row) {
    const std::int64_t entry = pages_ != nullptr ? 0 : (p.cache_batch_idx ? p.cache_batch_idx[b] : b);
    k_base_ = entry * p.k_strides.batch + hk * p.k_strides.head;
    v_base_ = entry * p.v_strides.batch + hk * p.v_strides.head;
    narrow_ = fits_31_bits(k_page_stride_) && fits_31_bits(v_page_stride_) && fits_31_bits(k_row_stride_) &&
              fits_31_bits(v_row_stride_);
  }

  __device__ __forceinline__ bool paged() const { return pages_ != nullptr; }
  /// Every page and row stride is below 2^31 (any realistic cache), so paged_offsets_narrow() applies.
  __device__ __forceinline__ bool narrow() const { return narrow_; }

  /// offsets() of a paged cache whose strides are narrow(): every factor is below 2^31 (page ids and
  /// in-page rows are non-negative ints), so each product is one 32 x 32 -> 64-bit multiply-add instead of
  /// a full 64-bit multiply.
  __device__ __forceinline__ void paged_offsets_narrow(int row, std::int64_t& k, std::int64_t& v) const {
    int page_index = 0;
    int in_page = 0;
    page_divmod_(page_index, in_page, row);
    const std::int32_t page = __ldg(pages_ + page_index);
    k = k_base_ + wide(page, k_page_stride_) + wide(in_page, k_row_stride_);
    v = v_base_ + wide(page, v_page_stride_) + wide(in_page, v_row_stride_);
  }

  /// Element offsets of key row `row` (0 <= row < the sequence's length) in k and v.
  __device__ __forceinline__ void offsets(int row, std::int64_t& k, std::int64_t& v) const {
    if (pages_ != nullptr) {
      int page_index = 0;
      int in_page = 0;
      page_divmod_(page_index, in_page, row);
      const std::int64_t page = __ldg(pages_ + page_index);
      k = k_base_ + page * k_page_stride_ + in_page * k_row_stride_;
      v = v_base_ + page * v_page_stride_ + in_page * v_row_stride_;
    } else {
      k = k_base_ + row * k_row_stride_;
      v = v_base_ + row * v_row_stride_;
    }
  }

  /// Dense cache: element steps from a key row to the row `rows` later.
  __device__ __forceinline__ std::int64_t k_step(int rows) const { return rows * k_row_stride_; }
  __device__ __forceinline__ std::int64_t v_step(int rows) const { return rows * v_row_stride_; }

 private:
  static __device__ __forceinline__ bool fits_31_bits(std::int64_t value) {
    return static_cast<std::uint64_t>(value) < (std::uint64_t{1} << 31);
  }
  /// a * b for 0 <= a, b < 2^31, as one 32 x 32 -> 64-bit multiply.
  static __device__ __forceinline__ std::int64_t wide(std::int32_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) *
                                     static_cast<std::uint32_t>(b));
  }

  const std::int32_t* pages_;  ///< The sequence's page-table row; null for a dense cache.
  cutlass::FastDivmod page_divmod_;
  std::int64_t k_page_stride_, v_page_stride_;
  std::int64_t k_row_stride_, v_row_stride_;
  std::int64_t k_base_, v_base_;  ///< Offset of row 0 (dense) or of page 0's head hk (paged).
  bool narrow_;
};

}  // namespace flashattn::cuda::decode
