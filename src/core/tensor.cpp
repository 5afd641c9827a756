// flashattn — TensorView and DType helpers.
#include <cstddef>

#include "flashattn/tensor.hpp"

namespace flashattn {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
    case DType::fp32:
      return "fp32";
    case DType::i32:
      return "i32";
  }
  return "unknown";
}

std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::fp16:
    case DType::bf16:
      return 2;
    case DType::fp32:
    case DType::i32:
      return 4;
  }
  return 0;
}

std::int64_t TensorView::numel() const {
  std::int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

TensorView TensorView::contiguous(void* data, DType dtype, std::initializer_list<std::int64_t> shape) {
  TensorView view;
  view.data = data;
  view.dtype = dtype;
  view.rank = static_cast<int>(shape.size());
  int d = 0;
  for (std::int64_t extent : shape) view.shape[d++] = extent;
  std::int64_t stride = 1;
  for (d = view.rank - 1; d >= 0; --d) {
    view.stride[d] = stride;
    stride *= view.shape[d];
  }
  return view;
}

TensorView TensorView::strided(void* data, DType dtype, std::initializer_list<std::int64_t> shape,
                               std::initializer_list<std::int64_t> strides) {
  TensorView view = contiguous(data, dtype, shape);
  int d = 0;
  for (std::int64_t stride : strides) {
    if (d >= view.rank) break;  // precondition: as many strides as extents
    view.stride[d++] = stride;
  }
  return view;
}

}  // namespace flashattn
