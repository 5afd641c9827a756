// The test inputs' random stream (testing/random.hpp): a seed gives the same values however they are drawn.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "testing/random.hpp"

namespace flashattn::testing {
namespace {

TEST(Rng, DiscardSkipsThatManyDraws) {
  for (std::uint64_t draws : {0ull, 1ull, 2ull, 1000ull, 123457ull}) {
    Rng drawn(7, 3), skipped(7, 3);
    for (std::uint64_t i = 0; i < draws; ++i) drawn.next_u64();
    skipped.discard(draws);
    EXPECT_EQ(drawn.next_u64(), skipped.next_u64()) << draws;
  }
}

TEST(Rng, NormalTakesTwoDraws) {
  Rng normal(11, 1), skipped(11, 1);
  normal.normal();
  skipped.discard(Rng::kDrawsPerNormal);
  EXPECT_EQ(normal.next_u64(), skipped.next_u64());
}

// Over several of normal_draws' parallel chunks and a partial one: the values of one sequential pass.
TEST(Rng, ParallelNormalDrawsAreTheSequentialStream) {
  const std::int64_t count = 3 * (std::int64_t{1} << 16) + 12345;
  const std::vector<double> drawn = normal_draws(Rng(2024, 2), count);
  ASSERT_EQ(static_cast<std::int64_t>(drawn.size()), count);
  Rng sequential(2024, 2);
  for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(drawn[i], sequential.normal()) << i;
}

}  // namespace
}  // namespace flashattn::testing
