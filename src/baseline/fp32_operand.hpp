// flashattn — fp32 matrices of the (B|-, S, H, D) operands, for the standard baseline. sgemm reads fp32
// matrices with a leading dimension, so an fp32 tensor is used in place (its row stride is the leading
// dimension) and an fp16/bf16 tensor is widened once into a compact fp32 copy, as a framework's cast
// would do before an fp32 matmul.
#pragma once

#include <cstdint>
#include <vector>

#include "core/params.hpp"

namespace flashattn::baseline {

/// Which sequence rows an operand holds: the query side (q, out, dout, dq) or the key side (k, v, dk, dv).
/// Key-side rows span each sequence's full length, seqused_k included, so gradients past seqused_k are
/// written (as zeros) too.
enum class Side { query, key };

/// One operand as fp32: the (S_b, dim) matrix of (b, h) starts at at(b, h), rows ld() elements apart.
class Fp32Operand {
 public:
  /// An input: the tensor itself when it is fp32, otherwise a widened copy of its sequence rows.
  static Fp32Operand input(const ForwardParams& params, Side side, const void* data,
                           const OperandStrides& strides, int heads, int dim);

  /// An output: the tensor itself when it is fp32, otherwise an fp32 scratch that store() rounds back.
  static Fp32Operand output(const ForwardParams& params, Side side, void* data, const OperandStrides& strides,
                            int heads, int dim);

  // Movable, not copyable: at() may point into scratch_, whose buffer a move keeps.
  Fp32Operand(Fp32Operand&&) = default;
  Fp32Operand(const Fp32Operand&) = delete;
  Fp32Operand& operator=(const Fp32Operand&) = delete;

  float* at(int b, int h) const {
    return data_ + b * strides_.batch + start(b) * strides_.row + h * strides_.head;
  }
  std::int64_t ld() const { return strides_.row; }

  /// Rows of sequence b.
  int rows(int b) const;

  /// Writes an fp32 scratch back into the fp16/bf16 output tensor; nothing to do for fp32 outputs.
  void store() const;

 private:
  Fp32Operand(const ForwardParams& params, Side side, void* tensor, const OperandStrides& strides, int heads,
              int dim);
  std::int64_t start(int b) const { return side_ == Side::query ? params_->q_start(b) : params_->k_start(b); }

  const ForwardParams* params_;
  Side side_;
  int heads_;
  int dim_;
  void* tensor_;                   // The caller's tensor (any dtype).
  OperandStrides tensor_strides_;  // Its strides.
  std::vector<float> scratch_;     // Compact fp32 copy; empty for fp32 tensors.
  float* data_ = nullptr;          // fp32 data addressed by at(): the tensor or the scratch.
  OperandStrides strides_;         // Strides of data_.
};

}  // namespace flashattn::baseline
