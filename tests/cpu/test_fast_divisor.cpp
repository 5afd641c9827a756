// core::FastDivisor (src/core/fast_divisor.hpp) against the `/` operator: every divisor up to 4096 and the
// powers of two and their neighbours up to 2^30, on dividends at and around multiples of the divisor, at
// both ends of the range and at random.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/fast_divisor.hpp"

namespace flashattn::core {
namespace {

std::vector<int> divisors() {
  std::vector<int> out;
  for (int d = 1; d <= 4096; ++d) out.push_back(d);
  for (int k = 13; k <= 30; ++k) {
    for (int delta = -1; delta <= 1; ++delta) out.push_back((1 << k) + delta);
  }
  out.push_back(std::numeric_limits<int>::max());
  return out;
}

TEST(FastDivisor, QuotientsEqualIntegerDivision) {
  constexpr int kMax = std::numeric_limits<int>::max();
  std::mt19937 random(7);
  std::uniform_int_distribution<int> any(0, kMax);
  for (const int d : divisors()) {
    const FastDivisor divisor(d);
    ASSERT_EQ(divisor.divisor(), d);
    std::vector<int> dividends = {0, 1, d - 1, d, kMax, kMax - 1, kMax - d + 1};
    // Around the largest multiples of d and a few small ones, where a wrong rounding would show first.
    const int top = kMax / d;
    for (const int q : {1, 2, 3, top - 1, top}) {
      const std::int64_t multiple = std::int64_t{q} * d;
      for (std::int64_t n = multiple - 1; n <= multiple + 1; ++n) {
        if (n >= 0 && n <= kMax) dividends.push_back(static_cast<int>(n));
      }
    }
    for (int i = 0; i < 64; ++i) dividends.push_back(any(random));
    for (const int n : dividends) {
      if (n < 0) continue;
      ASSERT_EQ(divisor.div(n), n / d) << n << " / " << d;
    }
  }
}

TEST(FastDivisor, DefaultDividesByOne) {
  const FastDivisor one;
  EXPECT_EQ(one.divisor(), 1);
  for (const int n : {0, 1, 12345, std::numeric_limits<int>::max()}) EXPECT_EQ(one.div(n), n);
}

}  // namespace
}  // namespace flashattn::core
