// flashattn — exp2_polynomial(): 2^x from fp32 adds, fmas and an integer add, for CUDA kernels whose softmax
// is bound by the MUFU unit (cuda/common/softmax.cuh), and for the host, where the CPU tests check the very
// arithmetic the kernels run: every operation is an IEEE fp32 add or a correctly rounded fma on both sides.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace flashattn::core {

// Bit casts usable on both sides: the CUDA sources compile as C++17 (cmake/FlashattnCuda.cmake), which has
// no std::bit_cast.
FLASHATTN_HOST_DEVICE float float_from_bits(std::int32_t bits) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
#endif
}

FLASHATTN_HOST_DEVICE std::int32_t bits_from_float(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_int(value);
#else
  std::int32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
#endif
}

/// 2^x for x <= 0 (a score minus its row's maximum, log2 domain), so that a kernel bound by the MUFU unit's
/// 16 results per clock and SM can move part of its exponentials to the FMA pipe. x is split into n + f,
/// n = round(x) and f in [-1/2, 1/2], by the 1.5 * 2^23 addition (n lands in the sum's low mantissa bits);
/// 2^f comes from a degree-5 polynomial (relative error below 2.4e-7 in fp32 over the interval, as
/// ex2.approx's 2 ulp; tests/cpu/test_exp2_polynomial.cpp), and n is added to its exponent field. Below -125
/// (and at -inf) the result is 0 exactly, as ex2.approx.ftz's is for every masked score: the exponent field
/// would underflow there.
FLASHATTN_HOST_DEVICE float exp2_polynomial(float x) {
  constexpr float kRoundingShift = 12582912.0f;  // 1.5 * 2^23
  const float clamped = fmaxf(x, -125.0f);
  const float shifted = clamped + kRoundingShift;
  const float f = clamped - (shifted - kRoundingShift);
  float p = 1.32764713e-3f;
  p = fmaf(p, f, 9.67554189e-3f);
  p = fmaf(p, f, 5.55071309e-2f);
  p = fmaf(p, f, 2.40221202e-1f);
  p = fmaf(p, f, 6.93146944e-1f);
  p = fmaf(p, f, 1.00000012f);
  // The shift keeps n's low 9 bits (two's complement) in the exponent field; n is in [-125, 0].
  const float scaled =
      float_from_bits(bits_from_float(p) +
                      static_cast<std::int32_t>(static_cast<std::uint32_t>(bits_from_float(shifted)) << 23));
  return x < -125.0f ? 0.0f : scaled;
}

}  // namespace flashattn::core
