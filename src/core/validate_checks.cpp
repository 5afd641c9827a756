// flashattn — tensor argument checks. See validate_checks.hpp.
#include "core/validate_checks.hpp"

#include <cstdint>
#include <string>

namespace flashattn::core {

Status invalid(const std::string& message) { return {StatusCode::invalid_argument, message}; }

std::string shape_string(const TensorView& t) {
  std::string s = "(";
  for (int d = 0; d < t.rank; ++d) s += (d ? ", " : "") + std::to_string(t.shape[d]);
  return s + ")";
}

Status check_tensor(const char* name, const TensorView& t, int rank, const char* layout) {
  if (t.rank != rank) {
    return invalid(std::string(name) + ": expected rank " + std::to_string(rank) + " " + layout +
                   ", got rank " + std::to_string(t.rank));
  }
  for (int d = 0; d < rank; ++d) {
    if (t.shape[d] < 0) {
      return invalid(std::string(name) + ": shape[" + std::to_string(d) + "] must be >= 0, got " +
                     std::to_string(t.shape[d]));
    }
  }
  if (t.shape[rank - 1] > 1 && t.stride[rank - 1] != 1) {
    return invalid(std::string(name) + ": the last dimension must be contiguous (stride[" +
                   std::to_string(rank - 1) + "] == 1), got stride " + std::to_string(t.stride[rank - 1]));
  }
  if (t.numel() > 0) {
    if (t.data == nullptr) {
      return invalid(std::string(name) + ": data is null but the tensor has " + std::to_string(t.numel()) +
                     " elements");
    }
    if (reinterpret_cast<std::uintptr_t>(t.data) % element_size(t.dtype) != 0) {
      return invalid(std::string(name) + ": data pointer is not aligned to its element size (" +
                     std::to_string(element_size(t.dtype)) + " bytes)");
    }
  }
  return {};
}

Status check_dtype(const char* name, const TensorView& t, DType expected, const char* why) {
  if (t.dtype != expected) {
    return invalid(std::string(name) + ": dtype must be " + to_string(expected) + " (" + why + "), got " +
                   to_string(t.dtype));
  }
  return {};
}

Status check_shape(const char* name, const TensorView& t, const std::vector<std::int64_t>& expected,
                   const char* layout) {
  bool same = static_cast<int>(expected.size()) == t.rank;
  for (int d = 0; same && d < t.rank; ++d) same = t.shape[d] == expected[d];
  if (!same) {
    std::string want = "(";
    for (std::size_t d = 0; d < expected.size(); ++d) want += (d ? ", " : "") + std::to_string(expected[d]);
    return invalid(std::string(name) + ": shape must be " + want + ") " + layout + ", got " +
                   shape_string(t));
  }
  return {};
}

OperandStrides strides_of(const TensorView& t, bool varlen) {
  // Dense (B, S, H, D): batch, row, head = stride[0..2]. Varlen (total, H, D): row, head = stride[0..1].
  if (varlen) return {0, t.stride[0], t.stride[1]};
  return {t.stride[0], t.stride[1], t.stride[2]};
}

Status set_workspace(void* workspace, std::size_t bytes, ForwardParams& params) {
  if (workspace == nullptr && bytes != 0) {
    return invalid("workspace: workspace_bytes is " + std::to_string(bytes) + " but workspace is null");
  }
  params.workspace = workspace;
  params.workspace_bytes = bytes;
  return {};
}

}  // namespace flashattn::core
