// flashattn — fp32 operands of the standard baseline: in place for fp32, widened / narrowed otherwise.
#include "baseline/fp32_operand.hpp"

#include <algorithm>
#include <cstdint>

#include "core/numeric.hpp"

namespace flashattn::baseline {
namespace {

float load(const void* base, DType dtype, std::int64_t index) {
  switch (dtype) {
    case DType::fp16:
      return numeric::fp16_to_float(static_cast<const std::uint16_t*>(base)[index]);
    case DType::bf16:
      return numeric::bf16_to_float(static_cast<const std::uint16_t*>(base)[index]);
    default:
      return static_cast<const float*>(base)[index];
  }
}

void store_as(void* base, DType dtype, std::int64_t index, float value) {
  switch (dtype) {
    case DType::fp16:
      static_cast<std::uint16_t*>(base)[index] = numeric::float_to_fp16(value);
      break;
    case DType::bf16:
      static_cast<std::uint16_t*>(base)[index] = numeric::float_to_bf16(value);
      break;
    default:
      static_cast<float*>(base)[index] = value;
  }
}

}  // namespace

Fp32Operand::Fp32Operand(const ForwardParams& params, Side side, void* tensor, const OperandStrides& strides,
                         int heads, int dim)
    : params_(&params), side_(side), heads_(heads), dim_(dim), tensor_(tensor), tensor_strides_(strides) {
  if (params.dtype == DType::fp32) {
    data_ = static_cast<float*>(tensor);
    strides_ = strides;
    return;
  }
  // Compact copy with the same addressing rule: (B, S, H, dim) dense, (total, H, dim) varlen.
  const std::int64_t row = std::int64_t{heads} * dim;
  std::int64_t total_rows = 0;
  if (params.is_varlen()) {
    for (int b = 0; b < params.batch; ++b) total_rows = std::max(total_rows, start(b) + rows(b));
    strides_ = {0, row, dim};
  } else {
    const std::int64_t seqlen = side == Side::query ? params.max_seqlen_q : params.max_seqlen_k;
    total_rows = params.batch * seqlen;
    strides_ = {seqlen * row, row, dim};
  }
  scratch_.assign(static_cast<std::size_t>(total_rows * row), 0.0f);
  data_ = scratch_.data();
}

int Fp32Operand::rows(int b) const {
  if (side_ == Side::query) return params_->seqlen_q(b);
  if (params_->cu_seqlens_k) return params_->cu_seqlens_k[b + 1] - params_->cu_seqlens_k[b];
  return params_->max_seqlen_k;
}

Fp32Operand Fp32Operand::input(const ForwardParams& params, Side side, const void* data,
                               const OperandStrides& strides, int heads, int dim) {
  // The const_cast is confined here: an input operand is only ever read through at().
  Fp32Operand operand(params, side, const_cast<void*>(data), strides, heads, dim);
  if (operand.scratch_.empty()) return operand;
  for (int b = 0; b < params.batch; ++b) {
    const std::int64_t begin = operand.start(b);
    const int count = operand.rows(b);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) {
      for (int h = 0; h < heads; ++h) {
        const std::int64_t src = b * strides.batch + (begin + i) * strides.row + h * strides.head;
        float* dst = operand.at(b, h) + i * operand.ld();
        for (int d = 0; d < dim; ++d) dst[d] = load(data, params.dtype, src + d);
      }
    }
  }
  return operand;
}

Fp32Operand Fp32Operand::output(const ForwardParams& params, Side side, void* data,
                                const OperandStrides& strides, int heads, int dim) {
  return Fp32Operand(params, side, data, strides, heads, dim);
}

void Fp32Operand::store() const {
  if (scratch_.empty()) return;
  const auto& s = tensor_strides_;
  for (int b = 0; b < params_->batch; ++b) {
    const std::int64_t begin = start(b);
    const int count = rows(b);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) {
      for (int h = 0; h < heads_; ++h) {
        const std::int64_t dst = b * s.batch + (begin + i) * s.row + h * s.head;
        const float* src = at(b, h) + i * ld();
        for (int d = 0; d < dim_; ++d) store_as(tensor_, params_->dtype, dst + d, src[d]);
      }
    }
  }
}

}  // namespace flashattn::baseline
