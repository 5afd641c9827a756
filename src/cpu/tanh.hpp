// flashattn — tanh for fp32 vectors (soft capping), branch-free on top of exp2.hpp.
//
// Accuracy: about 4 ulp (checked in tests/cpu/test_cpu_kernels_math.cpp); tanh(+-inf) = +-1.
// |x| < 1/4: odd Taylor polynomial through x^11 (truncation < 1e-10 relative).
// |x| >= 1/4: tanh|x| = (1 - e) / (1 + e) with e = 2^(-2|x| log2(e)) in (0, 0.61]; the subtraction
// amplifies exp2's error by at most e / (1 - e) < 1.6.
#pragma once

#include "cpu/exp2.hpp"
#include "cpu/simd.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

inline Vec tanh(Vec x) {
  constexpr float kTwoLog2e = 2.0f * 1.44269504088896341f;
  const Vec ax = select(x < 0.0f, -x, x);

  const Vec x2 = x * x;
  Vec poly = splat(-1382.0f / 155925.0f);
  poly = poly * x2 + 62.0f / 2835.0f;
  poly = poly * x2 + -17.0f / 315.0f;
  poly = poly * x2 + 2.0f / 15.0f;
  poly = poly * x2 + -1.0f / 3.0f;
  const Vec small = x + x * (x2 * poly);

  const Vec e = exp2(ax * -kTwoLog2e);
  const Vec large_abs = (1.0f - e) / (1.0f + e);
  const Vec large = select(x < 0.0f, -large_abs, large_abs);
  return select(ax < 0.25f, small, large);
}

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
