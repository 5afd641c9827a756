// flashattn — 2^x for fp32 vectors, branch-free so that softmax loops vectorise (std::exp2 does not).
//
// Accuracy: at most 2 ulp from the correctly rounded 2^x for -126 <= x < 128 (checked against long
// double over a dense sweep in tests/cpu/test_cpu_kernels_math.cpp). Special values:
//   x < -126 (including -inf) -> exactly +0 (softmax relies on masked scores, -inf, giving 0);
//   x >= 128 (including +inf) -> +inf;  NaN -> NaN.
// Method: n = round(x) and g = x - n in [-1/2, 1/2] (both exact); 2^g from its degree-7 Taylor
// polynomial in g (truncation error < 6e-9 relative, a tenth of an ulp) evaluated by Horner with FMA;
// then multiplied by 2^(n/2) and 2^(n - n/2), two normal powers of two, so the one rounding that can
// happen (subnormal results near x = -126, or overflow near 128) is done by the hardware correctly.
#pragma once

#include <limits>

#include "cpu/simd.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

inline Vec exp2(Vec x) {
  constexpr double kLn2 = 0.6931471805599453094;
  // Taylor coefficients ln2^k / k! of 2^g = e^(g ln2).
  constexpr float c1 = static_cast<float>(kLn2);
  constexpr float c2 = static_cast<float>(kLn2 * kLn2 / 2);
  constexpr float c3 = static_cast<float>(kLn2 * kLn2 * kLn2 / 6);
  constexpr float c4 = static_cast<float>(kLn2 * kLn2 * kLn2 * kLn2 / 24);
  constexpr float c5 = static_cast<float>(kLn2 * kLn2 * kLn2 * kLn2 * kLn2 / 120);
  constexpr float c6 = static_cast<float>(kLn2 * kLn2 * kLn2 * kLn2 * kLn2 * kLn2 / 720);
  constexpr float c7 = static_cast<float>(kLn2 * kLn2 * kLn2 * kLn2 * kLn2 * kLn2 * kLn2 / 5040);
  // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer (ties to even) for |x| < 2^22.
  constexpr float kRoundMagic = 0x1.8p23f;

  const Vec clamped = select(x > -127.0f, x, splat(-127.0f));  // also maps NaN to -127
  const Vec xc = select(clamped < 128.0f, clamped, splat(128.0f));
  const Vec rounded = (xc + kRoundMagic) - kRoundMagic;
  const Vec g = xc - rounded;
  Vec p = splat(c7);
  p = p * g + c6;
  p = p * g + c5;
  p = p * g + c4;
  p = p * g + c3;
  p = p * g + c2;
  p = p * g + c1;
  p = p * g + 1.0f;

  const VecI n = __builtin_convertvector(rounded, VecI);  // in [-127, 128]
  const VecI n_half = n >> 1;
  const Vec scale_a = reinterpret_cast<Vec>((n_half + 127) << 23);
  const Vec scale_b = reinterpret_cast<Vec>((n - n_half + 127) << 23);
  Vec result = (p * scale_a) * scale_b;

  result = select(x < -126.0f, splat(0.0f), result);
  result = select(x >= 128.0f, splat(std::numeric_limits<float>::infinity()), result);
  return select(x != x, x, result);
}

/// Scalar 2^x with exactly the vector version's results.
inline float exp2(float x) { return exp2(splat(x))[0]; }

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
