// fp16 / bf16 conversions of core/numeric.hpp: exact round trips, round to nearest even, and agreement
// with the oracle's independent rounding (the two must agree or the oracle would judge other inputs
// than the backends read).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/numeric.hpp"
#include "reference/rounding.hpp"
#include "testing/random.hpp"

namespace flashattn::numeric {
namespace {

TEST(Numeric, Fp16RoundTripsEveryPattern) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float value = fp16_to_float(static_cast<std::uint16_t>(bits));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(value))));
      continue;
    }
    ASSERT_EQ(float_to_fp16(value), bits) << std::hex << bits;
  }
}

TEST(Numeric, Bf16RoundTripsEveryPattern) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float value = bf16_to_float(static_cast<std::uint16_t>(bits));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(value))));
      continue;
    }
    ASSERT_EQ(float_to_bf16(value), bits) << std::hex << bits;
  }
}

TEST(Numeric, Fp16RoundsToNearestEven) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(1.0f + 0x1p-11f), 0x3c00);             // tie between 0x3c00 and 0x3c01: even
  EXPECT_EQ(float_to_fp16(1.0f + 3 * 0x1p-11f), 0x3c02);         // tie between 0x3c01 and 0x3c02: even
  EXPECT_EQ(float_to_fp16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);  // just above the tie
  EXPECT_EQ(float_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);  // overflow to infinity
  EXPECT_EQ(float_to_fp16(0x1p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_fp16(0x1p-25f), 0x0000);  // tie with zero: even
  EXPECT_EQ(float_to_fp16(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Numeric, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f), 0x3f80);      // tie: even
  EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);  // tie: even
  EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to infinity
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload sits only in the dropped bits must not become infinity.
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::bit_cast<float>(0x7f800001u)))));
}

TEST(Numeric, AgreesWithTheOraclesRounding) {
  flashattn::testing::Rng rng(2024, 0);
  for (int n = 0; n < 200000; ++n) {
    // Magnitudes from fp16 subnormals to beyond its range.
    const float x =
        static_cast<float>(rng.normal() * std::ldexp(1.0, static_cast<int>(rng.uniform() * 44) - 28));
    ASSERT_EQ(static_cast<double>(fp16_to_float(float_to_fp16(x))), reference::round_to_fp16(x)) << x;
    ASSERT_EQ(static_cast<double>(bf16_to_float(float_to_bf16(x))), reference::round_to_bf16(x)) << x;
  }
}

}  // namespace
}  // namespace flashattn::numeric
