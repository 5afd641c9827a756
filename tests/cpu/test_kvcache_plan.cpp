// The CUDA decode plan (core/kvcache_plan.hpp), pure host functions testable without a GPU: the split
// heuristic fills the SMs in near-whole waves, never splits a call that fills them already or a cache too
// short to split, and the workspace layout holds exactly the regions the kernels use, aligned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/kvcache_plan.hpp"

namespace flashattn::core {
namespace {

constexpr int kH200Sms = 132;

double wave_efficiency(std::int64_t ctas, int slots) {
  const double waves = static_cast<double>(ctas) / slots;
  return waves / std::ceil(waves);
}

TEST(KVCachePlan, OneSplitWhenTheBatchFillsTheSms) {
  // B = 64, Hk = 8: 512 CTAs for 264 slots.
  EXPECT_EQ(choose_kvcache_splits(64 * 8, 32768, kH200Sms, 2), 1);
  // 80% of the slots counts as a full wave.
  EXPECT_EQ(choose_kvcache_splits(212, 131072, kH200Sms, 2), 1);
}

TEST(KVCachePlan, NoSplitOfACacheTooShortToSplit) {
  // One 64-key tile: a split needs kMinTilesPerSplit tiles.
  EXPECT_EQ(choose_kvcache_splits(8, 64, kH200Sms, 2), 1);
  EXPECT_LE(choose_kvcache_splits(8, 256, kH200Sms, 2), 256 / kDecodeKeysPerTile / kMinTilesPerSplit);
}

TEST(KVCachePlan, SplitsFillTheSmsInNearWholeWaves) {
  for (const std::int64_t ctas : {8, 32, 128}) {
    for (const std::int64_t capacity : {8192, 32768, 131072}) {
      const int splits = choose_kvcache_splits(ctas, capacity, kH200Sms, 2);
      ASSERT_GE(splits, 1);
      ASSERT_LE(splits, kMaxAutoSplits);
      double best = 0;
      const int max_splits = static_cast<int>(
          std::min<std::int64_t>(kMaxAutoSplits, capacity / kDecodeKeysPerTile / kMinTilesPerSplit));
      for (int s = 1; s <= max_splits; ++s) best = std::max(best, wave_efficiency(ctas * s, 2 * kH200Sms));
      EXPECT_GE(wave_efficiency(ctas * splits, 2 * kH200Sms), 0.85 * best) << ctas << " CTAs, " << capacity;
    }
  }
  // B = 1, Hk = 8, 131072 keys: 33 splits would make one whole wave (264 CTAs); 29 (232 CTAs, 88%) is the
  // smallest count within 85% of it.
  EXPECT_EQ(choose_kvcache_splits(8, 131072, kH200Sms, 2), 29);
}

KVCacheParams decode_params() {
  KVCacheParams p;
  p.dtype = DType::bf16;
  p.batch = 4;
  p.heads = 32;
  p.heads_kv = 8;
  p.head_dim = p.head_dim_v = 128;
  p.seqlen_q_new = 1;
  p.max_seqlen_q = 1;
  p.max_seqlen_k = 32768;  // capacity; cache_seqlens stays null: the plan never reads it
  return p;
}

TEST(KVCachePlan, RequestedSplitsOverrideTheHeuristic) {
  KVCacheParams p = decode_params();
  p.num_splits = 3;
  EXPECT_EQ(plan_kvcache(p, kH200Sms).num_splits, 3);
  p.num_splits = 0;
  EXPECT_EQ(plan_kvcache(p, kH200Sms).num_splits, choose_kvcache_splits(4 * 8, 32768, kH200Sms, 2));
}

TEST(KVCachePlan, RowBlocksPackTheGroupsTokens) {
  KVCacheParams p = decode_params();
  EXPECT_EQ(plan_kvcache(p, kH200Sms).row_blocks, 1);  // 1 token x 4 heads
  p.seqlen_q_new = 4;
  EXPECT_EQ(plan_kvcache(p, kH200Sms).row_blocks, 1);  // 16 rows
  p.heads_kv = 1;
  EXPECT_EQ(plan_kvcache(p, kH200Sms).row_blocks, 8);  // 4 tokens x 32 heads
}

TEST(KVCachePlan, WorkspaceHoldsRotatedQueriesAndPartials) {
  KVCacheParams p = decode_params();
  p.num_splits = 1;
  EXPECT_EQ(plan_kvcache(p, kH200Sms).bytes, 0u) << "one split without rotary writes out directly";
  int table = 0;
  p.rotary_cos = &table;
  p.num_splits = 5;
  const KVCachePlan plan = plan_kvcache(p, kH200Sms);
  const std::size_t rows = 4 * 1 * 32;
  EXPECT_EQ(plan.q_rotated_bytes, rows * 128 * 2);
  EXPECT_GE(plan.lse_partial_offset, plan.q_rotated_offset + plan.q_rotated_bytes);
  EXPECT_GE(plan.o_partial_offset, plan.lse_partial_offset + 5 * rows * sizeof(float));
  EXPECT_GE(plan.bytes, plan.o_partial_offset + 5 * rows * 128 * sizeof(float));
  for (std::size_t offset : {plan.q_rotated_offset, plan.lse_partial_offset, plan.o_partial_offset})
    EXPECT_EQ(offset % 256, 0u);
}

}  // namespace
}  // namespace flashattn::core
