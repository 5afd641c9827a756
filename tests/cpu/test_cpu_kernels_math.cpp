// Unit tests of the CPU backend's vector math (src/cpu/exp2.hpp, src/cpu/tanh.hpp) and of the lane-tile
// micro-kernel (src/cpu/tile_gemm.hpp), against long double / double references.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "cpu/exp2.hpp"
#include "cpu/tanh.hpp"
#include "cpu/tile_gemm.hpp"

namespace flashattn::cpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// |got - ref| in units of the last place of the float nearest to ref.
double ulp_error(float got, long double ref) {
  const float rounded = static_cast<float>(ref);
  const float ulp = std::nextafter(std::fabs(rounded), kInf) - std::fabs(rounded);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

TEST(CpuExp2, WithinTwoUlpOverTheNormalRange) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-126.0f, 127.99f);
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1e-8f, -1e-8f, -125.999f, 127.5f};
  for (int i = 0; i < 200000; ++i) xs.push_back(uniform(rng));
  for (int i = 0; i < 20000; ++i) xs.push_back(uniform(rng) / 128.0f);  // near 0, where exp2 ~ 1
  double worst = 0.0;
  for (float x : xs) worst = std::max(worst, ulp_error(exp2(x), std::exp2l(static_cast<long double>(x))));
  EXPECT_LE(worst, 2.0);
}

TEST(CpuExp2, SpecialValues) {
  EXPECT_EQ(exp2(-kInf), 0.0f);
  EXPECT_EQ(exp2(-126.5f), 0.0f);
  EXPECT_EQ(exp2(-1000.0f), 0.0f);
  EXPECT_EQ(exp2(0.0f), 1.0f);
  EXPECT_EQ(exp2(10.0f), 1024.0f);
  EXPECT_EQ(exp2(-126.0f), 0x1p-126f);
  EXPECT_EQ(exp2(128.0f), kInf);
  EXPECT_EQ(exp2(kInf), kInf);
  EXPECT_TRUE(std::isnan(exp2(std::numeric_limits<float>::quiet_NaN())));
  // Every lane is computed independently.
  Vec x = splat(1.0f);
  x[3] = -kInf;
  const Vec y = exp2(x);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 2.0f);
}

TEST(CpuTanh, WithinFourUlp) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-12.0f, 12.0f);
  double worst = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const float x = i % 2 ? uniform(rng) : uniform(rng) / 24.0f;
    worst = std::max(worst, ulp_error(tanh(splat(x))[0], std::tanh(static_cast<long double>(x))));
  }
  EXPECT_LE(worst, 4.0);
  EXPECT_EQ(tanh(splat(kInf))[0], 1.0f);
  EXPECT_EQ(tanh(splat(-kInf))[0], -1.0f);
  EXPECT_EQ(tanh(splat(0.0f))[0], 0.0f);
}

TEST(CpuTileGemm, MatchesDoubleForEveryRowTail) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  for (int rows : {1, 2, 3, 4, 5, 6, 7, 13, 64}) {
    const int k_count = 37;
    // A read transposed in place: A(r, k) = a[k * rows + r].
    std::vector<float> a(static_cast<std::size_t>(rows) * k_count);
    std::vector<float> b(static_cast<std::size_t>(k_count) * kTileLanes);
    std::vector<float> c(static_cast<std::size_t>(rows) * kTileLanes);
    for (float& x : a) x = normal(rng);
    for (float& x : b) x = normal(rng);
    for (float& x : c) x = normal(rng);
    const std::vector<float> c0 = c;
    tile_gemm<true>(rows, k_count, {a.data(), 1, rows}, b.data(), kTileLanes, c.data(), kTileLanes);
    for (int r = 0; r < rows; ++r) {
      for (int l = 0; l < kTileLanes; ++l) {
        double ref = c0[r * kTileLanes + l];
        for (int k = 0; k < k_count; ++k) ref += double(a[k * rows + r]) * b[k * kTileLanes + l];
        ASSERT_NEAR(c[r * kTileLanes + l], ref, 1e-4) << "rows " << rows << " r " << r << " lane " << l;
      }
    }
    tile_gemm<false>(rows, 0, {a.data(), 1, rows}, b.data(), kTileLanes, c.data(), kTileLanes);
    for (float x : c) ASSERT_EQ(x, 0.0f);
  }
}

}  // namespace
}  // namespace flashattn::cpu
