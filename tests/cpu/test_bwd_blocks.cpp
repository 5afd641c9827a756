// The backward's block ranges (core/bwd_blocks.hpp) against a brute-force count over every row and key:
// a key block's query rows, and for every query block the key blocks whose walks reach it, which must be
// exactly [bwd_first_key_block, bwd_last_key_block]. The deterministic dQ turns count on that: a key
// block's turn is its distance from one end of the range, so a gap or an overlap would hang the kernel.
// And the query blocks that need no mask (BwdWholeQueryBlocks) against the kernels' per-block test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/bwd_blocks.hpp"
#include "core/params.hpp"

namespace flashattn::core {
namespace {

struct Shape {
  int seqlen_q, seqlen_k;
  std::int64_t window_left, window_right;
  int block_m, block_n;
};

std::string describe(const Shape& s) {
  std::ostringstream out;
  out << "Sq " << s.seqlen_q << " Sk " << s.seqlen_k << " window (" << s.window_left << ", " << s.window_right
      << ") blocks " << s.block_m << "x" << s.block_n;
  return out.str();
}

/// Whether row i keeps a key in [n0, n1), by the row's key interval clipped to the sequence's keys.
bool row_meets(const Shape& s, std::int64_t i, std::int64_t n0, std::int64_t n1) {
  const std::int64_t offset = std::int64_t{s.seqlen_k} - s.seqlen_q;
  const std::int64_t lo = std::max<std::int64_t>(0, i + offset - s.window_left);
  const std::int64_t hi = std::min<std::int64_t>(s.seqlen_k - 1, i + offset + s.window_right);
  return lo <= hi && lo < n1 && hi >= n0;
}

/// The kernels' per-step test for an unmasked step, as they compute it from KeyRange (clamped interval ends):
/// the block's last row keeps keys from n0 on, its first row up to n0 + block_n.
bool block_is_whole(const Shape& s, int m, int n0) {
  const std::int64_t offset = std::int64_t{s.seqlen_k} - s.seqlen_q;
  auto clamp = [&](std::int64_t key) { return std::clamp<std::int64_t>(key, 0, s.seqlen_k); };
  const std::int64_t row0 = std::int64_t{m} * s.block_m;
  const std::int64_t last_row = std::min<std::int64_t>(row0 + s.block_m, s.seqlen_q) - 1;
  return clamp(last_row + offset - s.window_left) <= n0 &&
         clamp(row0 + offset + s.window_right + 1) >= n0 + s.block_n;
}

void check(const Shape& s) {
  const int n_blocks = (s.seqlen_k + s.block_n - 1) / s.block_n;
  const int m_blocks = (s.seqlen_q + s.block_m - 1) / s.block_m;
  for (int n = 0; n < n_blocks; ++n) {
    const int n0 = n * s.block_n;
    const BwdWholeQueryBlocks whole(s.seqlen_q, s.seqlen_k, s.window_left, s.window_right, n0, s.block_m,
                                    s.block_n);
    for (int m = 0; m < m_blocks; ++m) {
      EXPECT_EQ(m >= whole.begin && m < whole.end, block_is_whole(s, m, n0))
          << "whole query block " << m << " of key block " << n << " (" << whole.begin << ", " << whole.end
          << "), " << describe(s);
    }
  }
  // Query blocks each key block's walk covers, as the kernels compute them from BwdQueryRows.
  std::vector<std::vector<int>> visitors(m_blocks);
  for (int n = 0; n < n_blocks; ++n) {
    const int n0 = n * s.block_n;
    const int n1 = std::min(n0 + s.block_n, s.seqlen_k);
    const BwdQueryRows rows(s.seqlen_q, s.seqlen_k, s.window_left, s.window_right, n0, n1);
    std::int64_t first = -1, last = -1;
    for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
      if (!row_meets(s, i, n0, n1)) continue;
      if (first < 0) first = i;
      ASSERT_TRUE(last < 0 || last == i - 1)
          << "rows meeting key block " << n << " are not consecutive, " << describe(s);
      last = i;
    }
    if (first < 0) {
      EXPECT_GE(rows.begin, rows.end) << "key block " << n << ", " << describe(s);
      continue;
    }
    EXPECT_EQ(rows.begin, first) << "key block " << n << ", " << describe(s);
    EXPECT_EQ(rows.end, last + 1) << "key block " << n << ", " << describe(s);
    const int m_begin = static_cast<int>(rows.begin / s.block_m);
    const int m_end = static_cast<int>((rows.end + s.block_m - 1) / s.block_m);
    for (int m = m_begin; m < m_end; ++m) visitors[m].push_back(n);
  }
  for (int m = 0; m < m_blocks; ++m) {
    if (visitors[m].empty()) continue;
    const int first = bwd_first_key_block(m, s.block_m, s.block_n, s.seqlen_q, s.seqlen_k, s.window_left);
    const int last = bwd_last_key_block(m, s.block_m, s.block_n, s.seqlen_q, s.seqlen_k, s.window_right);
    std::vector<int> expected;
    for (int n = first; n <= last; ++n) expected.push_back(n);
    EXPECT_EQ(visitors[m], expected) << "query block " << m << ", " << describe(s);
  }
}

TEST(BwdBlocks, RangesMatchABruteForceCountOverRowsAndKeys) {
  const std::int64_t none = kUnboundedWindow;
  const std::vector<std::pair<std::int64_t, std::int64_t>> windows = {
      {none, none}, {none, 0}, {100, 0}, {17, 5}, {0, 0}, {none, 3}, {40, none}};
  const std::vector<std::pair<int, int>> blocks = {{64, 128}, {64, 64}, {128, 128}, {32, 64}};
  for (int seqlen_q : {1, 5, 63, 64, 65, 130, 300, 511}) {
    for (int seqlen_k : {1, 7, 64, 129, 300, 640}) {
      for (const auto& [left, right] : windows) {
        for (const auto& [block_m, block_n] : blocks) {
          check({seqlen_q, seqlen_k, left, right, block_m, block_n});
        }
      }
    }
  }
}

// The tile order: every (key block, pair) once; sections of `section_heads` pairs in turn, each pair's key
// block 0 first, then each one's key block 1, ...; a section of every pair is one global longest-first
// order, a section of one pair runs its key blocks in turn (key blocks fastest).
TEST(BwdBlocks, TileOrderVisitsEveryTileOnceSectionBySection) {
  for (const auto& [batch_heads, n_blocks] :
       std::vector<std::pair<int, int>>{{1, 1}, {6, 4}, {64, 32}, {24, 7}}) {
    for (int section_heads = 1; section_heads <= batch_heads; ++section_heads) {
      if (batch_heads % section_heads != 0) continue;
      std::vector<int> seen(static_cast<std::size_t>(batch_heads) * n_blocks, 0);
      for (int tile = 0; tile < batch_heads * n_blocks; ++tile) {
        const BwdTileCoord coord(tile, section_heads, n_blocks);
        ASSERT_GE(coord.n_block, 0);
        ASSERT_LT(coord.n_block, n_blocks);
        ASSERT_GE(coord.batch_head, 0);
        ASSERT_LT(coord.batch_head, batch_heads);
        ++seen[static_cast<std::size_t>(coord.batch_head) * n_blocks + coord.n_block];
        const int section = tile / (section_heads * n_blocks);
        EXPECT_EQ(coord.batch_head / section_heads, section) << "tile " << tile;
        EXPECT_EQ(coord.n_block, tile % (section_heads * n_blocks) / section_heads) << "tile " << tile;
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(seen.size()))
          << batch_heads << " pairs, " << n_blocks << " key blocks, sections of " << section_heads;
    }
    for (int tile = 0; tile < batch_heads * n_blocks; ++tile) {
      const BwdTileCoord global(tile, batch_heads, n_blocks);
      EXPECT_EQ(global.n_block, tile / batch_heads);
      EXPECT_EQ(global.batch_head, tile % batch_heads);
      const BwdTileCoord one(tile, 1, n_blocks);
      EXPECT_EQ(one.n_block, tile % n_blocks);
      EXPECT_EQ(one.batch_head, tile / n_blocks);
    }
  }
}

}  // namespace
}  // namespace flashattn::core
