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

// GQA packing where it leaves at most 2/3 of the 128-row tiles.
TEST(Heuristics, Sm90ForwardPacksGqaWhereItLeavesTwoThirdsOfTheTiles) {
  EXPECT_TRUE(pack_gqa_sm90(1, 4, 128));     // decoding: 1 packed tile for 4
  EXPECT_TRUE(pack_gqa_sm90(64, 4, 128));    // 2 for 4
  EXPECT_TRUE(pack_gqa_sm90(150, 4, 128));   // 5 for 8
  EXPECT_TRUE(pack_gqa_sm90(40, 3, 128));    // any group: 1 for 3
  EXPECT_TRUE(pack_gqa_sm90(150, 3, 128));   // 4 for 6: the bound
  EXPECT_FALSE(pack_gqa_sm90(96, 4, 128));   // 3 for 4
  EXPECT_FALSE(pack_gqa_sm90(200, 4, 128));  // 7 for 8: measured slower packed
  EXPECT_FALSE(pack_gqa_sm90(300, 2, 128));  // 5 for 6
  EXPECT_FALSE(pack_gqa_sm90(128, 4, 128));  // 4 for 4
  EXPECT_FALSE(pack_gqa_sm90(100, 4, 128));  // 4 for 4: as many padded rows either way
  EXPECT_FALSE(pack_gqa_sm90(256, 2, 128));  // 4 for 4
  EXPECT_FALSE(pack_gqa_sm90(4096, 4, 128));
  EXPECT_FALSE(pack_gqa_sm90(1000, 4, 128));  // 32 for 32
  EXPECT_FALSE(pack_gqa_sm90(64, 1, 128));    // no GQA
  EXPECT_FALSE(pack_gqa_sm90(0, 4, 128));     // no query rows
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
// bytes fit the L2 budget, a divisor of the pairs, where a pair has at least 16 key blocks; key blocks
// fastest (sections of one) without the bound or with fewer blocks.
TEST(Heuristics, BackwardSectionsItsTilesOnlyUnderARightWindowBound) {
  constexpr long long kBudget = kBwdSectionL2Bytes;
  EXPECT_EQ(bwd_heads_per_section(true, 8, 512, 132, kBudget), 8);  // GQA B 1, S 8k: one order
  EXPECT_EQ(bwd_heads_per_section(true, 8, 4 * 132, 132, kBudget), 8);
  EXPECT_EQ(bwd_heads_per_section(true, 8, 4 * 132 + 1, 132, kBudget), 1);   // a pair fills the budget
  EXPECT_EQ(bwd_heads_per_section(false, 512, 2048, 132, kBudget / 64), 1);  // full attention: blocks equal
  // The causal grid of B·S = 16k (2048 tiles and more): as many pairs as fit, a divisor of their count.
  EXPECT_EQ(bwd_heads_per_section(true, 64, 2048, 132, kBudget / 8), 8);
  EXPECT_EQ(bwd_heads_per_section(true, 128, 2048, 132, kBudget / 64), 64);  // 16 key blocks a pair
  EXPECT_EQ(bwd_heads_per_section(true, 256, 2048, 132, kBudget / 64), 1);   // 8 (D 256 S 512): fastest
  EXPECT_EQ(bwd_heads_per_section(true, 512, 2048, 132, kBudget / 64), 1);   // 4 (D 64 S 512): fastest
  EXPECT_EQ(bwd_heads_per_section(true, 24, 2048, 132, kBudget / 8), 8);     // the largest divisor that fits
  EXPECT_EQ(bwd_heads_per_section(true, 7, 2048, 132, kBudget / 8), 7);      // all of them fit
  EXPECT_EQ(bwd_heads_per_section(true, 13, 2048, 132, kBudget / 8), 1);  // a prime above the fit: one each
  EXPECT_EQ(bwd_heads_per_section(true, 64, 2048, 132, kBudget * 2), 1);  // not even one fits
  EXPECT_EQ(bwd_heads_per_section(true, 64, 2048, 132, 0), 64);           // nothing to hold: one order
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
