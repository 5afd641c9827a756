// flashattn — the element types the CPU backend reads and writes, their fp32 conversions, and the one
// switch from the runtime DType to a kernel instantiated for its element type.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "core/numeric.hpp"
#include "flashattn/status.hpp"
#include "flashattn/tensor.hpp"

namespace flashattn::cpu {

/// Element types as stored by the caller (bit patterns; layout-compatible with std::uint16_t).
struct Bf16 {
  std::uint16_t bits;
};
struct Fp16 {
  std::uint16_t bits;
};

inline float to_float(float x) { return x; }
inline float to_float(Bf16 x) { return numeric::bf16_to_float(x.bits); }
inline float to_float(Fp16 x) { return numeric::fp16_to_float(x.bits); }

template <class T>
T from_float(float x);
template <>
inline float from_float<float>(float x) {
  return x;
}
template <>
inline Bf16 from_float<Bf16>(float x) {
  return {numeric::float_to_bf16(x)};
}
template <>
inline Fp16 from_float<Fp16>(float x) {
  return {numeric::float_to_fp16(x)};
}

/// Calls `kernel(T{})` with T the element type of `dtype` (float, Bf16 or Fp16).
template <class Kernel>
Status with_element_type(DType dtype, Kernel&& kernel) {
  switch (dtype) {
    case DType::fp32:
      return std::forward<Kernel>(kernel)(float{});
    case DType::bf16:
      return std::forward<Kernel>(kernel)(Bf16{});
    case DType::fp16:
      return std::forward<Kernel>(kernel)(Fp16{});
    default:
      break;
  }
  return {StatusCode::unsupported,
          std::string("cpu backend: dtype ") + to_string(dtype) + " is not supported"};
}

}  // namespace flashattn::cpu
