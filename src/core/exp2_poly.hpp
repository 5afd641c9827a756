// flashattn — 2^x from fused multiply-adds, for the share of a softmax's exponentials that a kernel moves off
// the MUFU unit (OnlineSoftmax in cuda/common/softmax.cuh).
//
// Why: at D = 64 the Hopper forward issues one MUFU.EX2 per score, and the MUFU unit (16 results per cycle
// and SM) takes as long per score tile as the tensor cores take for both of its GEMMs (docs/PERF.md). The
// FMA pipe (128 lanes per SM) has room: computing every n-th exponential there shortens the softmax where
// the MUFU queue sets its pace, at ten FMA-pipe instructions per emulated score against one MUFU issue.
//
// How: x = j + f with j = round(x) and f in [-0.5, 0.5]; 2^f from a degree-4 polynomial, 2^j built in the
// exponent field. The coefficients were fitted to the relative error on [-0.5, 0.5] with p(0) = 1 exactly:
// at most 2.9e-6 relative (evaluated in fp32), against 2.4e-7 for MUFU.EX2's 2 ulp and 2^-12 = 2.4e-4 for
// the fp16 rounding of P; tests/cpu/test_exp2_poly.cpp checks the bound.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace flashattn::core {

namespace detail {

FLASHATTN_HOST_DEVICE std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

FLASHATTN_HOST_DEVICE float float_from_bits(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}

/// max(x, lo), NaN kept (one max.NaN instruction on the GPU; fmaxf would turn NaN into lo).
FLASHATTN_HOST_DEVICE float max_keep_nan(float x, float lo) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(x), "f"(lo));
  return y;
#else
  return x < lo ? lo : x;
#endif
}

}  // namespace detail

/// 2^x for x <= 127: relative error at most 2.9e-6 where the result is at least 2^-126; +0 for
/// x <= -127 and -inf (the scores of masked keys), NaN for NaN; exactly 2^x for integers in [-126, 127].
FLASHATTN_HOST_DEVICE float exp2_poly(float x) {
  // From -127 down the result leaves the normal range; clamped there, j = -127 and f = 0, so the scale
  // below is +0 (exponent field 127 + j = 0, no mantissa) and the result +0 exactly.
  x = detail::max_keep_nan(x, -127.0f);
  // x + 1.5 * 2^23 holds round(x) in its low mantissa bits (round to nearest even, |x| < 2^22).
  constexpr float kRound = 12582912.0f;
  const float shifted = x + kRound;
  const float j = shifted - kRound;
  const float f = x - j;
  float p = 0.009582829661667347f;
  p = p * f + 0.05590641498565674f;
  p = p * f + 0.24024099111557007f;
  p = p * f + 0.6931241750717163f;
  p = p * f + 1.0f;
  // shifted's bits are kRound's (0x4b400000, whose low 23 bits are zero) plus j in two's complement, so
  // bits << 23 is j << 23 modulo 2^32; adding 1.0f's bits makes 2^j (+0 at j = -127).
  const float scale = detail::float_from_bits((detail::float_bits(shifted) << 23) + 0x3f800000u);
  return p * scale;
}

}  // namespace flashattn::core
