// flashattn testing — an owning host buffer of any API dtype, viewed with a shape and strides. Every byte
// starts as the dtype's quiet NaN ("poison"): an element the code under test should have written but did
// not stays NaN, and padding that it should never have read spreads NaN if it does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "flashattn/tensor.hpp"

namespace flashattn::testing {

class HostTensor {
 public:
  /// Absent (rank 0): an optional argument left out.
  HostTensor() = default;

  /// Row-major and contiguous.
  static HostTensor contiguous(DType dtype, std::vector<std::int64_t> shape);

  /// Non-contiguous but valid for the API (last dimension stride 1): the last dimension is padded by 16
  /// bytes (rows stay 16-byte aligned when they were), every middle dimension by one, and from rank 3 on
  /// the two outermost dimensions are swapped in memory (e.g. (B, S, H, D) is stored as S, B, H+1, D+pad).
  /// Rank 1 tensors stay contiguous.
  static HostTensor padded(DType dtype, std::vector<std::int64_t> shape);

  bool present() const { return !shape_.empty(); }
  DType dtype() const { return dtype_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t shape(int dim) const { return shape_[dim]; }
  std::int64_t stride(int dim) const { return strides_[dim]; }
  std::int64_t numel() const;

  /// A view of the host memory (absent when the tensor is).
  TensorView view();

  /// Element offset of a multi-index (one entry per dimension).
  std::int64_t offset(std::initializer_list<std::int64_t> index) const;

  /// Value at an element offset, widened exactly to double.
  double get(std::int64_t offset) const;
  /// Stores `value`, which must be representable in the dtype (inputs are rounded before they get here).
  void set(std::int64_t offset, double value);

  /// Every byte back to poison.
  void poison();
  /// Whether the element at `offset` still holds the poison bit pattern.
  bool is_poisoned(std::int64_t offset) const;
  /// Whether every element outside the view (padding) still holds poison: nothing wrote out of bounds.
  bool padding_intact() const;

  const std::byte* bytes() const { return storage_.get(); }
  std::byte* bytes() { return storage_.get(); }
  std::size_t size_bytes() const { return size_bytes_; }

 private:
  HostTensor(DType dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
             std::int64_t span);

  struct FreeDeleter {
    void operator()(std::byte* p) const;
  };

  DType dtype_ = DType::fp32;
  std::vector<std::int64_t> shape_;
  std::vector<std::int64_t> strides_;
  std::int64_t span_ = 0;  ///< Elements allocated (view plus padding).
  std::size_t size_bytes_ = 0;
  std::unique_ptr<std::byte[], FreeDeleter> storage_;
};

}  // namespace flashattn::testing
