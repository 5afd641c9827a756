#include "testing/host_tensor.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <utility>

#include "core/numeric.hpp"

namespace flashattn::testing {
namespace {

constexpr std::size_t kAlignment = 64;  // a cache line: more than any backend requires of a pointer
constexpr std::int64_t kPaddingBytes = 16;

template <class T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <class T>
void store(std::byte* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

void store_poison(DType dtype, std::byte* p) {
  switch (dtype) {
    case DType::fp16:
      return store<std::uint16_t>(p, 0x7e00);
    case DType::bf16:
      return store<std::uint16_t>(p, 0x7fc0);
    case DType::fp32:
      return store<std::uint32_t>(p, 0x7fc00000u);
    case DType::i32:
      return store<std::int32_t>(p, -0x7fffffff);  // no NaN for integers: a wild value instead
  }
}

}  // namespace

void HostTensor::FreeDeleter::operator()(std::byte* p) const { std::free(p); }

HostTensor::HostTensor(DType dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
                       std::int64_t span)
    : dtype_(dtype), shape_(std::move(shape)), strides_(std::move(strides)), span_(span) {
  size_bytes_ = static_cast<std::size_t>(span_) * element_size(dtype_);
  // Never a null pointer, even for an empty tensor: the API may read the pointer's alignment.
  const std::size_t allocated =
      std::max<std::size_t>(kAlignment, (size_bytes_ + kAlignment - 1) / kAlignment * kAlignment);
  storage_.reset(static_cast<std::byte*>(std::aligned_alloc(kAlignment, allocated)));
  poison();
}

HostTensor HostTensor::contiguous(DType dtype, std::vector<std::int64_t> shape) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t span = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = span;
    span *= shape[d];
  }
  return HostTensor(dtype, std::move(shape), std::move(strides), span);
}

HostTensor HostTensor::padded(DType dtype, std::vector<std::int64_t> shape) {
  const int rank = static_cast<int>(shape.size());
  if (rank < 2) return contiguous(dtype, std::move(shape));
  std::vector<std::int64_t> extent = shape;
  extent[rank - 1] += kPaddingBytes / static_cast<std::int64_t>(element_size(dtype));
  for (int d = 1; d < rank - 1; ++d) extent[d] += 1;
  // Memory order, innermost first: the last dimensions as given, then the first two swapped.
  std::vector<int> inner_to_outer(rank);
  std::iota(inner_to_outer.rbegin(), inner_to_outer.rend(), 0);
  if (rank >= 3) std::swap(inner_to_outer[rank - 1], inner_to_outer[rank - 2]);
  std::vector<std::int64_t> strides(rank);
  std::int64_t span = 1;
  for (int d : inner_to_outer) {
    strides[d] = span;
    span *= extent[d];
  }
  return HostTensor(dtype, std::move(shape), std::move(strides), span);
}

std::int64_t HostTensor::numel() const {
  return std::accumulate(shape_.begin(), shape_.end(), std::int64_t{1}, std::multiplies<>());
}

TensorView HostTensor::view() {
  TensorView view;
  if (!present()) return view;
  view.data = storage_.get();
  view.dtype = dtype_;
  view.rank = rank();
  std::copy(shape_.begin(), shape_.end(), view.shape.begin());
  std::copy(strides_.begin(), strides_.end(), view.stride.begin());
  return view;
}

std::int64_t HostTensor::offset(std::initializer_list<std::int64_t> index) const {
  std::int64_t result = 0;
  int d = 0;
  for (std::int64_t i : index) result += i * strides_[d++];
  return result;
}

double HostTensor::get(std::int64_t offset) const {
  const std::byte* p = storage_.get() + offset * element_size(dtype_);
  switch (dtype_) {
    case DType::fp16:
      return numeric::fp16_to_float(load<std::uint16_t>(p));
    case DType::bf16:
      return numeric::bf16_to_float(load<std::uint16_t>(p));
    case DType::fp32:
      return load<float>(p);
    case DType::i32:
      return load<std::int32_t>(p);
  }
  return 0;
}

void HostTensor::set(std::int64_t offset, double value) {
  std::byte* p = storage_.get() + offset * element_size(dtype_);
  switch (dtype_) {
    case DType::fp16:
      return store(p, numeric::float_to_fp16(static_cast<float>(value)));
    case DType::bf16:
      return store(p, numeric::float_to_bf16(static_cast<float>(value)));
    case DType::fp32:
      return store(p, static_cast<float>(value));
    case DType::i32:
      return store(p, static_cast<std::int32_t>(value));
  }
}

void HostTensor::poison() {
  const std::size_t size = element_size(dtype_);
  for (std::int64_t i = 0; i < span_; ++i) store_poison(dtype_, storage_.get() + i * size);
}

bool HostTensor::is_poisoned(std::int64_t offset) const {
  const std::size_t size = element_size(dtype_);
  std::byte poison_bytes[4];
  store_poison(dtype_, poison_bytes);
  return std::memcmp(storage_.get() + offset * size, poison_bytes, size) == 0;
}

bool HostTensor::padding_intact() const {
  std::vector<bool> in_view(span_, false);
  if (numel() > 0) {
    std::vector<std::int64_t> index(shape_.size(), 0);
    for (std::int64_t n = 0; n < numel(); ++n) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < index.size(); ++d) off += index[d] * strides_[d];
      in_view[off] = true;
      for (int d = rank() - 1; d >= 0 && ++index[d] == shape_[d]; --d) index[d] = 0;
    }
  }
  for (std::int64_t i = 0; i < span_; ++i) {
    if (!in_view[i] && !is_poisoned(i)) return false;
  }
  return true;
}

}  // namespace flashattn::testing
