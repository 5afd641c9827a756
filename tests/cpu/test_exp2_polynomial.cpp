// core::exp2_polynomial (src/core/exp2_polynomial.hpp), the FMA-pipe 2^x of the Hopper forward's D = 64
// softmax, against exp2 in double: the same fp32 adds and correctly rounded fmas the kernels run, here on the
// host. Every 61st float of [-125, 0] (18 million) and the values the split treats specially: integers,
// half-integers (the rounding ties) and the clamp at -125.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/exp2_polynomial.hpp"

namespace flashattn::core {
namespace {

// ex2.approx.f32's documented bound is 2 ulp (2^-22 relative); the polynomial's is below 2.4e-7.
constexpr double kMaxRelativeError = 2.4e-7;

double relative_error(float x) {
  const double exact = std::exp2(static_cast<double>(x));
  return std::fabs(static_cast<double>(exp2_polynomial(x)) - exact) / exact;
}

TEST(Exp2Polynomial, RelativeErrorBelowBoundOverTheSoftmaxRange) {
  // The negative floats from -0 down to -125 are the bit patterns 0x80000000 ... bits(-125) in order.
  const std::uint32_t first = 0x80000000u;
  const std::uint32_t last = static_cast<std::uint32_t>(bits_from_float(-125.0f));
  double worst = 0.0;
  float worst_at = 0.0f;
  std::int64_t checked = 0;
  for (std::uint64_t bits = first; bits <= last; bits += 61) {
    const float x = float_from_bits(static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
    const double error = relative_error(x);
    if (error > worst) {
      worst = error;
      worst_at = x;
    }
    ++checked;
  }
  EXPECT_GT(checked, 18'000'000);
  EXPECT_LT(worst, kMaxRelativeError) << "at x = " << worst_at;
}

TEST(Exp2Polynomial, IntegersAndRoundingTiesAreAccurate) {
  for (int twice = -250; twice <= 0; ++twice) {
    const float x = 0.5f * static_cast<float>(twice);
    EXPECT_LT(relative_error(x), kMaxRelativeError) << "at x = " << x;
  }
  EXPECT_NEAR(exp2_polynomial(0.0f), 1.0f, 2e-7f);
  EXPECT_NEAR(exp2_polynomial(-1.0f), 0.5f, 1e-7f);
}

TEST(Exp2Polynomial, BelowTheClampAndMaskedScoresGiveZero) {
  EXPECT_EQ(exp2_polynomial(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(exp2_polynomial(std::nextafter(-125.0f, -200.0f)), 0.0f);
  EXPECT_EQ(exp2_polynomial(-200.0f), 0.0f);
  EXPECT_EQ(exp2_polynomial(-std::numeric_limits<float>::max()), 0.0f);
  EXPECT_GT(exp2_polynomial(-125.0f), 0.0f);
}

}  // namespace
}  // namespace flashattn::core
