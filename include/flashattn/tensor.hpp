// flashattn — public tensor description: a non-owning view with a dtype, a shape and strides.
// No framework or CUDA types: a CPU-only user includes this as is.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace flashattn {

/// Element types understood by the API. `i32` is only used for index tensors (cu_seqlens, seqused_k).
enum class DType : std::uint8_t { fp16, bf16, fp32, i32 };

/// Short lowercase name: "fp16", "bf16", "fp32", "i32".
const char* to_string(DType dtype);

/// Bytes per element.
std::size_t element_size(DType dtype);

/// Largest rank any argument of the API has.
inline constexpr int kMaxRank = 4;

/// A non-owning view of a strided tensor. Strides are in elements, not bytes, and may be any value
/// (including 0 for broadcast dimensions) except that the API requires the last dimension to be
/// contiguous (stride 1). A view with `rank == 0` is *absent*: optional arguments are left absent.
/// A present view whose shape has a zero may have a null `data` pointer.
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::fp32;
  int rank = 0;
  std::array<std::int64_t, kMaxRank> shape{};
  std::array<std::int64_t, kMaxRank> stride{};

  /// True when the argument was given (rank > 0).
  bool present() const { return rank > 0; }

  /// Product of the shape (1 for rank 0 by convention, though absent views have no elements).
  std::int64_t numel() const;

  /// A row-major contiguous view of `shape` at `data`.
  static TensorView contiguous(void* data, DType dtype, std::initializer_list<std::int64_t> shape);

  /// A view with explicit strides (elements); `shape` and `strides` must have the same length.
  static TensorView strided(void* data, DType dtype, std::initializer_list<std::int64_t> shape,
                            std::initializer_list<std::int64_t> strides);
};

}  // namespace flashattn
