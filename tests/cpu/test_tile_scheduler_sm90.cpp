// The persistent tile order of the Hopper forward (src/cuda/sm90/tile_scheduler_sm90.hpp), checked on the
// host: the CTAs together visit every tile exactly once, longest tiles come first under a mask, and the
// CTAs' shares of a causal problem are balanced (the property the order exists for: a static round-robin
// over per-head sorted sections left some CTAs six times the work of others).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "cuda/sm90/tile_scheduler_sm90.hpp"

namespace flashattn::cuda::sm90 {
namespace {

struct Shape {
  int batch, heads, m_blocks;
  bool causal;
};

PersistentTileScheduler::Order order_of(const Shape& shape) {
  FwdKernelParams params;
  params.problem.batch = shape.batch;
  params.problem.heads = shape.heads;
  params.problem.heads_kv = shape.heads;
  params.problem.max_seqlen_q = shape.m_blocks * 128;
  params.problem.max_seqlen_k = shape.m_blocks * 128;
  params.problem.causal = shape.causal;
  if (shape.causal) params.problem.window_right = 0;
  params.num_m_blocks = shape.m_blocks;
  return PersistentTileScheduler::order(params);
}

// The tiles each of `ctas` CTAs computes, in its order.
std::vector<std::vector<PersistentTileScheduler::Tile>> shares(const PersistentTileScheduler::Order& order,
                                                               int ctas) {
  std::vector<std::vector<PersistentTileScheduler::Tile>> result(ctas);
  for (int cta = 0; cta < ctas; ++cta) {
    for (std::int64_t round = 0;; ++round) {
      const std::int64_t index = PersistentTileScheduler::position(cta, ctas, round);
      if (index >= order.tiles) break;
      result[cta].push_back(PersistentTileScheduler::tile(order, index));
    }
  }
  return result;
}

// The paper grid's shapes at D = 128 and 256 (B * S = 16k, hidden 2048), a long-context GQA shape, a
// partial last round and a single tile.
const std::vector<Shape> kShapes = {{32, 16, 4, true},   {1, 16, 128, true}, {1, 8, 128, true},
                                    {1, 32, 1024, true}, {3, 7, 5, false},   {1, 16, 128, false},
                                    {1, 1, 1, true}};

TEST(TileSchedulerSm90, VisitsEveryTileExactlyOnce) {
  for (const Shape& shape : kShapes) {
    const auto order = order_of(shape);
    ASSERT_EQ(order.tiles, std::int64_t{shape.m_blocks} * shape.batch * shape.heads);
    std::set<std::tuple<int, int, int>> seen;
    for (const auto& share : shares(order, PersistentTileScheduler::grid_size(order, 132))) {
      for (const auto& tile : share) {
        ASSERT_GE(tile.m_block, 0);
        ASSERT_LT(tile.m_block, shape.m_blocks);
        ASSERT_GE(tile.head, 0);
        ASSERT_LT(tile.head, shape.heads);
        ASSERT_GE(tile.batch, 0);
        ASSERT_LT(tile.batch, shape.batch);
        EXPECT_TRUE(seen.insert({tile.m_block, tile.head, tile.batch}).second);
      }
    }
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), order.tiles);
  }
}

TEST(TileSchedulerSm90, MaskedProblemsGoLongestTileFirst) {
  for (const Shape& shape : kShapes) {
    const auto order = order_of(shape);
    if (!shape.causal) continue;
    for (std::int64_t i = 1; i < order.tiles; ++i) {
      EXPECT_LE(PersistentTileScheduler::tile(order, i).m_block,
                PersistentTileScheduler::tile(order, i - 1).m_block);
    }
  }
}

TEST(TileSchedulerSm90, CausalWorkIsBalancedOverTheCtas) {
  for (const Shape& shape : kShapes) {
    const auto order = order_of(shape);
    const int ctas = PersistentTileScheduler::grid_size(order, 132);
    if (!shape.causal || order.tiles < 4 * ctas) continue;  // too few tiles for every CTA to even out
    std::int64_t least = INT64_MAX, most = 0, longest = 0;
    for (const auto& share : shares(order, ctas)) {
      std::int64_t work = 0;  // key tiles of a causal query tile m (square tiles): m + 1
      for (const auto& tile : share) work += tile.m_block + 1;
      least = std::min(least, work);
      most = std::max(most, work);
    }
    longest = shape.m_blocks;
    // Snake rounds over a sorted list: CTAs differ by at most about one longest tile.
    EXPECT_LE(most - least, longest) << shape.batch << "x" << shape.heads << "x" << shape.m_blocks;
  }
}

TEST(TileSchedulerSm90, LaunchesAtMostOneCtaPerMultiprocessor) {
  EXPECT_EQ(PersistentTileScheduler::grid_size(order_of({32, 16, 4, false}), 132), 132);
  EXPECT_EQ(PersistentTileScheduler::grid_size(order_of({1, 2, 3, false}), 132), 6);
}

}  // namespace
}  // namespace flashattn::cuda::sm90
