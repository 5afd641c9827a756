// flashattn — the checks every validator applies to a tensor argument, with messages that name the
// argument and the rule (DESIGN.md §1, "invalid input").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "flashattn/status.hpp"
#include "flashattn/tensor.hpp"

namespace flashattn::core {

#define FLASHATTN_RETURN_IF_ERROR(expr) \
  do {                                  \
    Status status_ = (expr);            \
    if (!status_.ok()) return status_;  \
  } while (false)

/// An invalid_argument Status with `message`.
Status invalid(const std::string& message);

/// "(d0, d1, ...)" of `t`'s shape.
std::string shape_string(const TensorView& t);

/// Checks what every present tensor must satisfy: rank, non-negative extents, a contiguous last
/// dimension, a non-null pointer aligned to its element when it has elements.
Status check_tensor(const char* name, const TensorView& t, int rank, const char* layout);

/// `t`'s dtype is `expected` (`why` says what the tensor holds).
Status check_dtype(const char* name, const TensorView& t, DType expected, const char* why);

/// `t`'s shape is `expected` (`layout` names the dimensions).
Status check_shape(const char* name, const TensorView& t, const std::vector<std::int64_t>& expected,
                   const char* layout);

/// Batch, row and head strides of a dense (B, S, H, D) or varlen (total, H, D) operand.
OperandStrides strides_of(const TensorView& t, bool varlen);

/// Checks a caller's workspace (`bytes` without a pointer is an error; the size against the call's need is
/// checked where the need is known) and sets it in `params`.
Status set_workspace(void* workspace, std::size_t bytes, ForwardParams& params);

}  // namespace flashattn::core
