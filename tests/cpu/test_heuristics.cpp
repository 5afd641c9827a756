// The launch heuristics of core/heuristics.hpp at the boundaries of their models.
#include <gtest/gtest.h>

#include "core/heuristics.hpp"

namespace flashattn::core {
namespace {

TEST(Heuristics, ShortKeyLoopUpTo1024MeanKeysPerRow) {
  EXPECT_TRUE(short_key_loop(512, false));
  EXPECT_TRUE(short_key_loop(1024, false));
  EXPECT_FALSE(short_key_loop(1025, false));
  // Causal rows keep half the keys on average.
  EXPECT_TRUE(short_key_loop(2048, true));
  EXPECT_FALSE(short_key_loop(2050, true));
}

TEST(Heuristics, Sm90D64ShortKeyLoopUpTo512MeanKeysPerRow) {
  EXPECT_TRUE(short_key_loop_sm90_d64(512, false));
  EXPECT_FALSE(short_key_loop_sm90_d64(513, false));
  EXPECT_FALSE(short_key_loop_sm90_d64(1024, false));
  EXPECT_TRUE(short_key_loop_sm90_d64(1024, true));
  EXPECT_FALSE(short_key_loop_sm90_d64(2048, true));
}

}  // namespace
}  // namespace flashattn::core
