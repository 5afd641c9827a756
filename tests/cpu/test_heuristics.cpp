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

TEST(Heuristics, Sm90D64ShortKeyLoopUpTo1024Keys) {
  EXPECT_TRUE(short_key_loop_sm90_d64(512));
  EXPECT_TRUE(short_key_loop_sm90_d64(1024));
  EXPECT_FALSE(short_key_loop_sm90_d64(1025));
  EXPECT_FALSE(short_key_loop_sm90_d64(2048));
}

TEST(Heuristics, Sm90D128WideKeyTileWithoutCausalMaskFrom8192Keys) {
  EXPECT_TRUE(wide_key_tile_sm90_d128(8192, false));
  EXPECT_TRUE(wide_key_tile_sm90_d128(131072, false));
  EXPECT_FALSE(wide_key_tile_sm90_d128(8191, false));
  EXPECT_FALSE(wide_key_tile_sm90_d128(16384, true));  // causal: 0.92-1.00x measured
}

// Pairs of a head's tiles where the global longest-first order would run at most one tile of a head at a
// time (more heads than half the SMs), and only with two pairs per SM.
TEST(Heuristics, Sm90ForwardPairsTilesOfManyHeadsUnderAMask) {
  EXPECT_TRUE(fwd_tiles_paired(true, 32 * 16, 4, 132));    // causal B 32, H 16, S 512
  EXPECT_TRUE(fwd_tiles_paired(true, 8 * 16, 16, 132));    // causal B 8, H 16, S 2k
  EXPECT_FALSE(fwd_tiles_paired(true, 4 * 16, 32, 132));   // causal B 4, H 16, S 4k: two tiles a head at once
  EXPECT_FALSE(fwd_tiles_paired(true, 100, 2, 132));       // 100 pairs: SMs would idle
  EXPECT_FALSE(fwd_tiles_paired(false, 32 * 16, 4, 132));  // no mask: tiles are equal
}

// One global longest-first order under a right window bound up to 4 waves of tiles, where it was measured
// faster (GQA B 1, S 8k: 512 tiles on 132 SMs); beyond, sections of (batch, kv head) pairs whose query-side
// bytes fit the L2 budget, a divisor of the pairs; key blocks fastest (sections of one) without the bound.
TEST(Heuristics, BackwardSectionsItsTilesOnlyUnderARightWindowBound) {
  constexpr long long kBudget = kBwdSectionL2Bytes;
  EXPECT_EQ(bwd_heads_per_section(true, 8, 512, 132, kBudget), 8);  // GQA B 1, S 8k: one order
  EXPECT_EQ(bwd_heads_per_section(true, 8, 4 * 132, 132, kBudget), 8);
  EXPECT_EQ(bwd_heads_per_section(true, 8, 4 * 132 + 1, 132, kBudget), 1);   // a pair fills the budget
  EXPECT_EQ(bwd_heads_per_section(false, 512, 2048, 132, kBudget / 64), 1);  // full attention: blocks equal
  // The causal grid of B·S = 16k (2048 tiles and more): as many pairs as fit, a divisor of their count.
  EXPECT_EQ(bwd_heads_per_section(true, 64, 2048, 132, kBudget / 8), 8);
  EXPECT_EQ(bwd_heads_per_section(true, 512, 2048, 132, kBudget / 64), 64);
  EXPECT_EQ(bwd_heads_per_section(true, 24, 2048, 132, kBudget / 8), 8);  // the largest divisor that fits
  EXPECT_EQ(bwd_heads_per_section(true, 7, 2048, 132, kBudget / 8), 7);   // all of them fit
  EXPECT_EQ(bwd_heads_per_section(true, 13, 2048, 132, kBudget / 8), 1);  // a prime above the fit: one each
  EXPECT_EQ(bwd_heads_per_section(true, 64, 2048, 132, kBudget * 2), 1);  // not even one fits
  EXPECT_EQ(bwd_heads_per_section(true, 64, 2048, 132, 0), 64);           // nothing to hold: one order
}

// The last tiles' walks split only where every tile is equally long, in the parts (2-4, each at least two
// query blocks) that shorten the tail most, and not at all when the tiles fill whole waves.
TEST(Heuristics, BackwardSplitsTheWalksOfItsLastTilesOnlyWhereThatShortensTheTail) {
  EXPECT_TRUE(bwd_tail_splittable(true, false, false));
  EXPECT_FALSE(bwd_tail_splittable(false, false, false));  // a window bound (causal): tiles differ
  EXPECT_FALSE(bwd_tail_splittable(true, true, false));    // varlen: sequences differ
  EXPECT_FALSE(bwd_tail_splittable(true, false, true));    // deterministic: one CTA per key block's turns
  EXPECT_EQ(bwd_tail_parts(true, 2048, 132, 256), 3);      // D 128 B·S = 16k: 68 left, in thirds 2 / 3
  EXPECT_EQ(bwd_tail_parts(true, 2048, 132, 8), 3);        // S 512: 8 query blocks, parts of 2-3
  EXPECT_EQ(bwd_tail_parts(true, 4096, 132, 256), 4);      // D 64: 4 left
  EXPECT_EQ(bwd_tail_parts(true, 16, 132, 64), 4);         // fewer tiles than SMs
  EXPECT_EQ(bwd_tail_parts(true, 16 * 132, 132, 256), 1);  // whole waves
  EXPECT_EQ(bwd_tail_parts(true, 2048, 132, 5), 1);        // two parts at most, and halves do not help
  EXPECT_EQ(bwd_tail_parts(true, 2048, 132, 3), 1);        // one query block a part: not split
  EXPECT_EQ(bwd_tail_parts(true, 170, 200, 64), 1);        // more left than the workspace has room for
  EXPECT_EQ(bwd_tail_parts(false, 2048, 132, 256), 1);
  EXPECT_EQ(bwd_tail_parts(true, 2048, 0, 256), 1);  // SM count unknown
}

// The rotated walk only where the tile asks for it, with no right window bound (causal walks start on the
// diagonal already) and never in deterministic mode (its semaphores assume ascending query blocks).
TEST(Heuristics, BackwardRotatesTheWalkOnlyForUnboundedNonDeterministicRuns) {
  EXPECT_TRUE(bwd_rotated_walk(true, false, false));
  EXPECT_FALSE(bwd_rotated_walk(true, true, false));    // causal / bounded right window
  EXPECT_FALSE(bwd_rotated_walk(true, false, true));    // deterministic
  EXPECT_FALSE(bwd_rotated_walk(false, false, false));  // a tile that keeps ascending order (D 64 / 128)
}

// Descending dQ turns only for deterministic runs under a right window bound, where the walks climb from
// the diagonal; with no bound every walk starts at query block 0 and launch order (ascending) decides.
TEST(Heuristics, DeterministicBackwardTakesDescendingTurnsOnlyUnderARightWindowBound) {
  EXPECT_TRUE(bwd_deterministic_descending(true, true));
  EXPECT_FALSE(bwd_deterministic_descending(false, true));
  EXPECT_FALSE(bwd_deterministic_descending(true, false));
  EXPECT_FALSE(bwd_deterministic_descending(false, false));
}

}  // namespace
}  // namespace flashattn::core
