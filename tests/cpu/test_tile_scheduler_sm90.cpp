// The persistent tile order of the Hopper forward (src/cuda/sm90/tile_scheduler_sm90.hpp), checked on the
// host: every tile exactly once, longest first within each L2 section, and sections whose K/V fit the
// budget. A wrong order would still compute every tile on the GPU only if it were a permutation, so that is
// what the first test pins down; the others pin the two properties the order exists for.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "cuda/sm90/tile_scheduler_sm90.hpp"

namespace flashattn::cuda::sm90 {
namespace {

struct Shape {
  int batch, heads, heads_kv, seqlen_k, m_blocks;
};

PersistentTileScheduler::Order order_of(const Shape& shape, std::int64_t kv_bytes_per_key) {
  FwdKernelParams params;
  params.problem.batch = shape.batch;
  params.problem.heads = shape.heads;
  params.problem.heads_kv = shape.heads_kv;
  params.problem.max_seqlen_k = shape.seqlen_k;
  params.num_m_blocks = shape.m_blocks;
  return PersistentTileScheduler::order(params, kv_bytes_per_key);
}

// Shapes with one section, many sections, a last section that is partial, GQA and MQA, one tile.
const std::vector<Shape> kShapes = {{32, 16, 16, 512, 4},    {1, 16, 16, 16384, 128}, {3, 7, 7, 65536, 5},
                                    {1, 32, 8, 131072, 1024}, {2, 8, 1, 32768, 9},    {1, 1, 1, 1, 1}};
constexpr std::int64_t kBytesPerKey = 2 * 128 * 2;  // K and V rows of D = 128, bf16

TEST(TileSchedulerSm90, VisitsEveryTileExactlyOnce) {
  for (const Shape& shape : kShapes) {
    const auto order = order_of(shape, kBytesPerKey);
    ASSERT_EQ(order.tiles, std::int64_t{shape.m_blocks} * shape.batch * shape.heads);
    std::set<std::tuple<int, int, int>> seen;
    for (std::int64_t i = 0; i < order.tiles; ++i) {
      const auto tile = PersistentTileScheduler::tile(order, i);
      ASSERT_GE(tile.m_block, 0);
      ASSERT_LT(tile.m_block, shape.m_blocks);
      ASSERT_GE(tile.head, 0);
      ASSERT_LT(tile.head, shape.heads);
      ASSERT_GE(tile.batch, 0);
      ASSERT_LT(tile.batch, shape.batch);
      EXPECT_TRUE(seen.insert({tile.m_block, tile.head, tile.batch}).second) << "tile " << i << " repeats";
    }
  }
}

TEST(TileSchedulerSm90, LongestTilesFirstWithinEachSection) {
  for (const Shape& shape : kShapes) {
    const auto order = order_of(shape, kBytesPerKey);
    const std::int64_t section_tiles = std::int64_t{order.section_heads} * shape.m_blocks;
    for (std::int64_t i = 1; i < order.tiles; ++i) {
      if (i % section_tiles == 0) continue;  // a new section starts over from the longest tile
      EXPECT_LE(PersistentTileScheduler::tile(order, i).m_block, PersistentTileScheduler::tile(order, i - 1).m_block)
          << "tile " << i;
    }
  }
}

TEST(TileSchedulerSm90, SectionsKeepTheirKeysAndValuesWithinTheL2Budget) {
  for (const Shape& shape : kShapes) {
    const auto order = order_of(shape, kBytesPerKey);
    const int group = shape.heads / shape.heads_kv;
    // Query heads of one kv head share its K and V: a section reads section_heads / group kv heads.
    const std::int64_t kv_heads = (order.section_heads + group - 1) / group;
    const std::int64_t head_bytes = std::int64_t{shape.seqlen_k} * kBytesPerKey;
    if (kv_heads > 1) EXPECT_LE(kv_heads * head_bytes, PersistentTileScheduler::kL2Budget);
    EXPECT_GE(order.section_heads, 1);
  }
}

TEST(TileSchedulerSm90, LaunchesAtMostOneCtaPerMultiprocessor) {
  const auto many = order_of({32, 16, 16, 512, 4}, kBytesPerKey);
  EXPECT_EQ(PersistentTileScheduler::grid_size(many, 132), 132);
  const auto few = order_of({1, 2, 2, 512, 3}, kBytesPerKey);
  EXPECT_EQ(PersistentTileScheduler::grid_size(few, 132), 6);
}

}  // namespace
}  // namespace flashattn::cuda::sm90
