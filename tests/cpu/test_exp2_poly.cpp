// core::exp2_poly (src/core/exp2_poly.hpp), the FMA-pipe exponential of the softmax, against exp2 in double:
// its relative error bound over the softmax's whole domain, exact powers of two at integers, and the values
// the softmax relies on for masked scores (-inf and the far tail give +0; NaN stays NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/exp2_poly.hpp"

namespace flashattn::core {
namespace {

/// The bound documented in exp2_poly.hpp (2.9e-6 fitted; a little room for the host's unfused rounding).
constexpr double kMaxRelativeError = 3.2e-6;

TEST(Exp2Poly, RelativeErrorWithinBoundOverTheSoftmaxDomain) {
  // Every 2^-14 from -126 to 127: 4 million points, both signs of the reduced argument f at every integer.
  double worst = 0.0;
  float worst_x = 0.0f;
  for (int i = -126 * 16384; i <= 127 * 16384; ++i) {
    const float x = static_cast<float>(i) / 16384.0f;
    const double exact = std::exp2(static_cast<double>(x));
    const double error = std::abs(static_cast<double>(exp2_poly(x)) - exact) / exact;
    if (error > worst) {
      worst = error;
      worst_x = x;
    }
  }
  EXPECT_LE(worst, kMaxRelativeError) << "at x = " << worst_x;
}

TEST(Exp2Poly, IntegersGiveExactPowersOfTwo) {
  for (int j = -126; j <= 127; ++j) {
    EXPECT_EQ(exp2_poly(static_cast<float>(j)), std::ldexp(1.0f, j)) << "j = " << j;
  }
}

TEST(Exp2Poly, MaskedScoresGivePositiveZeroAndNaNStaysNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  for (const float x : {-inf, -1.0e30f, -1000.0f, -128.0f, -127.0f}) {
    const float y = exp2_poly(x);
    EXPECT_EQ(y, 0.0f) << "x = " << x;
    EXPECT_FALSE(std::signbit(y)) << "x = " << x;
  }
  EXPECT_TRUE(std::isnan(exp2_poly(std::numeric_limits<float>::quiet_NaN())));
  // Between -127 and -126 the result is below the normal range (a denormal or zero), never more than 2^-126.
  for (float x = -126.96875f; x < -126.0f; x += 0.03125f) {
    EXPECT_LE(exp2_poly(x), std::ldexp(1.0f, -126)) << "x = " << x;
    EXPECT_GE(exp2_poly(x), 0.0f) << "x = " << x;
  }
}

}  // namespace
}  // namespace flashattn::core
