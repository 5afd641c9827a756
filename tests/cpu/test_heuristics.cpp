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

// GQA packing where it leaves at most 2/3 of the 128-row tiles, and the fewer tiles take fewer rounds of
// the persistent CTAs (kManyPairs (batch, kv head) pairs: every tile saved is a round saved).
TEST(Heuristics, Sm90ForwardPacksGqaWhereItLeavesTwoThirdsOfTheTilesAndSavesARound) {
  constexpr long long kManyPairs = 132 * 64;
  const auto packs = [](long long seqlen_q, long long group) {
    return pack_gqa_sm90(seqlen_q, group, 128, kManyPairs, 132);
  };
  EXPECT_TRUE(packs(1, 4));     // decoding: 1 packed tile for 4
  EXPECT_TRUE(packs(64, 4));    // 2 for 4
  EXPECT_TRUE(packs(150, 4));   // 5 for 8
  EXPECT_TRUE(packs(40, 3));    // any group: 1 for 3
  EXPECT_TRUE(packs(150, 3));   // 4 for 6: the bound
  EXPECT_FALSE(packs(96, 4));   // 3 for 4
  EXPECT_FALSE(packs(200, 4));  // 7 for 8: measured slower packed
  EXPECT_FALSE(packs(300, 2));  // 5 for 6
  EXPECT_FALSE(packs(128, 4));  // 4 for 4
  EXPECT_FALSE(packs(100, 4));  // 4 for 4: as many padded rows either way
  EXPECT_FALSE(packs(256, 2));  // 4 for 4
  EXPECT_FALSE(packs(4096, 4));
  EXPECT_FALSE(packs(1000, 4));  // 32 for 32
  EXPECT_FALSE(packs(64, 1));    // no GQA
  EXPECT_FALSE(packs(0, 4));     // no query rows
  // Hq 32 / Hkv 8 on 132 SMs, the measured shapes: B 8 (64 pairs) packs at Sq 1 and 64 (2 rounds -> 1) and
  // Sq 150 (4 -> 3); B 1 (8 pairs: 32 unpacked tiles, one round) does not.
  EXPECT_TRUE(pack_gqa_sm90(1, 4, 128, 64, 132));
  EXPECT_TRUE(pack_gqa_sm90(64, 4, 128, 64, 132));
  EXPECT_TRUE(pack_gqa_sm90(150, 4, 128, 64, 132));
  EXPECT_FALSE(pack_gqa_sm90(16, 4, 128, 8, 132));
  EXPECT_FALSE(pack_gqa_sm90(64, 4, 128, 8, 132));
  EXPECT_TRUE(pack_gqa_sm90(64, 4, 128, 40, 132));   // 160 unpacked tiles (2 rounds), 80 packed (1)
  EXPECT_FALSE(pack_gqa_sm90(64, 4, 128, 33, 132));  // 132 unpacked tiles: one round
  EXPECT_FALSE(pack_gqa_sm90(64, 4, 128, 8, 0));     // no SMs
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

// The Hopper forward pairs two query heads of one kv head (GQA with an even group, MQA included), never MHA
// or an odd group, whose pairs would straddle two kv heads.
TEST(Heuristics, ForwardPairsQueryHeadsOnlyWhereTwoShareAKvHead) {
  EXPECT_TRUE(pairs_query_heads_sm90(32, 8));
  EXPECT_TRUE(pairs_query_heads_sm90(16, 1));
  EXPECT_TRUE(pairs_query_heads_sm90(4, 2));
  EXPECT_FALSE(pairs_query_heads_sm90(16, 16));  // MHA
  EXPECT_FALSE(pairs_query_heads_sm90(6, 2));    // group 3
  EXPECT_FALSE(pairs_query_heads_sm90(5, 1));    // MQA with an odd head count
  EXPECT_FALSE(pairs_query_heads_sm90(8, 0));
}

// Pairs only where a row walks at least 8192 keys: the longest sequence's keys, or a window's width when
// both its sides are bounded and it is narrower.
TEST(Heuristics, ForwardPairsOnlyWhereRowsWalkManyKeys) {
  EXPECT_TRUE(pairs_walk_keys_enough_sm90(8192, 0));
  EXPECT_TRUE(pairs_walk_keys_enough_sm90(131072, 0));
  EXPECT_TRUE(pairs_walk_keys_enough_sm90(16384, 8192));
  EXPECT_TRUE(pairs_walk_keys_enough_sm90(9000, 20000));  // a window wider than the keys
  EXPECT_FALSE(pairs_walk_keys_enough_sm90(8191, 0));
  EXPECT_FALSE(pairs_walk_keys_enough_sm90(512, 0));
  EXPECT_FALSE(pairs_walk_keys_enough_sm90(16384, 4097));  // a sliding window of 4096 + 1
  EXPECT_FALSE(pairs_walk_keys_enough_sm90(0, 0));
}

// The forward's pairing: none below 8192 keys a row; query heads where they pair, before query tiles; query
// tiles only unmasked, not varlen, with an even count; none otherwise.
TEST(Heuristics, ForwardPairsChooseQueryHeadsThenQueryTiles) {
  EXPECT_EQ(fwd_pairs_sm90(32, 8, 131072, 0, true, false, 1024), FwdPairsSm90::query_heads);  // GQA causal
  EXPECT_EQ(fwd_pairs_sm90(32, 8, 4096, 0, true, false, 32), FwdPairsSm90::none);             // too few keys
  EXPECT_EQ(fwd_pairs_sm90(16, 16, 16384, 0, false, false, 128), FwdPairsSm90::query_tiles);  // MHA full
  EXPECT_EQ(fwd_pairs_sm90(32, 8, 16384, 0, false, false, 128), FwdPairsSm90::query_heads);   // heads first
  EXPECT_EQ(fwd_pairs_sm90(16, 16, 16384, 0, true, false, 128), FwdPairsSm90::none);          // MHA causal
  EXPECT_EQ(fwd_pairs_sm90(16, 16, 16384, 0, false, true, 128), FwdPairsSm90::none);          // varlen
  EXPECT_EQ(fwd_pairs_sm90(16, 16, 16384, 0, false, false, 127), FwdPairsSm90::none);   // odd tile count
  EXPECT_EQ(fwd_pairs_sm90(32, 8, 16384, 4097, true, false, 128), FwdPairsSm90::none);  // narrow window
}

// Query tiles pair only where their key walks are equal and both hold rows: no causal or window mask, not
// varlen, an even count of query tiles.
TEST(Heuristics, ForwardPairsQueryTilesOnlyUnderAFullMaskWithAnEvenCount) {
  EXPECT_TRUE(pairs_query_tiles_sm90(false, false, 4));
  EXPECT_TRUE(pairs_query_tiles_sm90(false, false, 128));
  EXPECT_FALSE(pairs_query_tiles_sm90(true, false, 4));   // causal or a window
  EXPECT_FALSE(pairs_query_tiles_sm90(false, true, 4));   // varlen
  EXPECT_FALSE(pairs_query_tiles_sm90(false, false, 3));  // a tile without a partner
  EXPECT_FALSE(pairs_query_tiles_sm90(false, false, 0));
}

}  // namespace
}  // namespace flashattn::core
