// The CUDA decode plan (core/kvcache_plan.hpp), pure host functions testable without a GPU: the split
// heuristic picks the split counts measured best on an H200, never splits a call that fills the SMs already
// or a cache too short to split, splits more as the batch shrinks or the cache grows, the workspace
// layout holds exactly the regions the kernels use, aligned, and the cache is read evict-first where that
// measured faster.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/kvcache_plan.hpp"

namespace flashattn::core {
namespace {

constexpr int kH200Sms = 132;

/// The heuristic at D = 128 (two CTAs per SM) on an H200, for a batch of `batch` sequences of Hk = 8.
int splits_d128(std::int64_t batch, std::int64_t capacity) {
  return choose_kvcache_splits(batch * 8, capacity, kH200Sms, 2, 128);
}

TEST(KVCachePlan, OneSplitWhenTheBatchFillsTheSms) {
  EXPECT_EQ(splits_d128(64, 32768), 1);  // 512 CTAs for 264 slots
  EXPECT_EQ(splits_d128(32, 16384), 1);  // 256 CTAs
  // 128 CTAs, one on 97% of the SMs: session 21's sweep measured one split fastest at every length for a
  // dense cache; a paged one read 3-7% slower unsplit from L 8k, so it still splits there.
  for (const std::int64_t capacity : {1024, 8192, 32768, 131072}) {
    EXPECT_EQ(splits_d128(16, capacity), 1);
    EXPECT_GT(choose_kvcache_splits(16 * 8, capacity, kH200Sms, 2, 128, /*paged=*/true), 1);
  }
  EXPECT_GT(splits_d128(8, 32768), 1);  // 64 CTAs: half the SMs idle unsplit
  EXPECT_EQ(choose_kvcache_splits(32 * 8, 4096, kH200Sms, 2, 128, /*paged=*/true), 1);  // 256 CTAs
}

TEST(KVCachePlan, NoSplitOfACacheTooShortToSplit) {
  // One 64-key tile: a split needs kMinTilesPerSplit tiles.
  EXPECT_EQ(splits_d128(1, 64), 1);
  EXPECT_LE(splits_d128(1, 256), 256 / kDecodeKeysPerTile / kMinTilesPerSplit);
  EXPECT_EQ(choose_kvcache_splits(8, 0, kH200Sms, 2, 128), 1);
  EXPECT_EQ(choose_kvcache_splits(0, 4096, kH200Sms, 2, 128), 1);
}

TEST(KVCachePlan, ChoosesTheSplitCountsMeasuredBest) {
  // Sessions 10 and 21's sweeps on an H200 (docs/PERF.md, decode split model): the fastest of 12-13
  // counts per cell.
  EXPECT_EQ(splits_d128(1, 1024), 8);
  EXPECT_EQ(splits_d128(1, 4096), 16);
  EXPECT_EQ(splits_d128(1, 8192), 16);
  EXPECT_EQ(splits_d128(1, 65536), 32);
  EXPECT_EQ(splits_d128(2, 16384), 16);
  EXPECT_EQ(splits_d128(4, 16384), 8);
  EXPECT_EQ(splits_d128(32, 4096), 1);
}

TEST(KVCachePlan, TakesTheCombinesOneRoundBatchWhereItFillsTheSlots) {
  // Session 49 (H100, B 1, Hk 8, D 128): 32 splits beat the model's 33 by 0.6-1.1% at L 126k-131k. The
  // batch (32 splits up to Dv = 128, 16 above) is what the combine kernel loads in one round.
  EXPECT_EQ(combine_splits_per_round(64), 32);
  EXPECT_EQ(combine_splits_per_round(128), 32);
  EXPECT_EQ(combine_splits_per_round(192), 16);
  EXPECT_EQ(combine_splits_per_round(256), 16);
  for (const std::int64_t capacity : {126000, 130000, 131072, 1 << 20})
    EXPECT_EQ(splits_d128(1, capacity), 32);
  // D = 192 with Dv = 128 (multi-head latent attention's shape): the batch is Dv's, 32.
  EXPECT_EQ(choose_kvcache_splits(8, 131072, kH200Sms, 2, 192, false, 128), 32);
  // Not where the batch leaves more than one CTA slot in 16 empty: 144 SMs (256 of 288 slots), MQA at B 1
  // (32 of 264).
  EXPECT_GT(choose_kvcache_splits(8, 131072, 144, 2, 128), 32);
  EXPECT_GT(choose_kvcache_splits(1, 131072, kH200Sms, 2, 128), 32);
}

TEST(KVCachePlan, SplitsGrowAsTheBatchShrinksOrTheCacheGrows) {
  for (const std::int64_t capacity : {1024, 4096, 16384, 65536, 131072}) {
    int previous = kMaxAutoSplits;
    for (const std::int64_t batch : {1, 2, 4, 8, 16, 32, 64}) {
      const int splits = splits_d128(batch, capacity);
      EXPECT_LE(splits, previous) << "B " << batch << ", L " << capacity;
      EXPECT_GE(splits, 1);
      previous = splits;
    }
  }
  for (const std::int64_t batch : {1, 4, 16}) {
    int previous = 1;
    for (const std::int64_t capacity : {256, 1024, 4096, 16384, 65536, 131072}) {
      const int splits = splits_d128(batch, capacity);
      EXPECT_GE(splits, previous) << "B " << batch << ", L " << capacity;
      EXPECT_LE(splits, kMaxAutoSplits);
      previous = splits;
    }
  }
}

TEST(KVCachePlan, OneCtaPerSmHeadDimsSplitWithinTheirSlots) {
  // D = 256 holds one CTA per SM: B 1 at 64k keys fills the 132 SMs with at most one wave of 8 heads.
  const int splits = choose_kvcache_splits(8, 65536, kH200Sms, 1, 256);
  EXPECT_GE(splits, 8);
  EXPECT_LE(8 * splits, kH200Sms);
}

TEST(KVCachePlan, SplitsCombineInClustersOnlyWhenEveryClusterIsResident) {
  EXPECT_TRUE(combine_splits_in_clusters(8, 8, 16));    // B 1, Hk 8: 8 clusters of 8, 16 fit
  EXPECT_TRUE(combine_splits_in_clusters(2, 32, 32));   // exactly one wave of clusters
  EXPECT_FALSE(combine_splits_in_clusters(8, 32, 31));  // one cluster past the wave (session 10's B 4 case)
  EXPECT_FALSE(combine_splits_in_clusters(1, 8, 64));   // one split: nothing to combine
  EXPECT_FALSE(combine_splits_in_clusters(4, 8, 0));    // no cluster path on this device or kernel
  EXPECT_FALSE(combine_splits_in_clusters(4, 0, 16));   // an empty grid launches nothing
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
  EXPECT_EQ(plan_kvcache(p, kH200Sms).num_splits, choose_kvcache_splits(4 * 8, 32768, kH200Sms, 2, 128));
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

TEST(KVCachePlan, EvictFirstOnlyForCachesReadOnceAndWithinFourL2s) {
  constexpr std::int64_t kL2 = 50LL << 20;  // an H100's or H200's
  KVCacheParams p = decode_params();        // Hk 8, D 128, bf16: 4 KiB of K and V per key and batch entry
  // Session 41's decode grid (docs/PERF.md): 4-128 MiB gained, 256 MiB even, 512 MiB and more lost.
  const struct {
    int batch, capacity;
    bool evict_first;
  } cells[] = {{1, 1024, true},   {1, 32768, true},   {4, 8192, true},   {16, 1024, true},
               {64, 1024, false}, {1, 131072, false}, {4, 32768, false}, {64, 32768, false}};
  for (const auto& cell : cells) {
    p.batch = cell.batch;
    p.max_seqlen_k = cell.capacity;
    EXPECT_EQ(decode_cache_evict_first(p, kL2), cell.evict_first)
        << "B " << cell.batch << " L " << cell.capacity;
  }
  p.batch = 50;  // 4 x 50 MiB exactly: still evict-first; one key more per sequence is not
  p.max_seqlen_k = 1024;
  EXPECT_TRUE(decode_cache_evict_first(p, kL2));
  p.max_seqlen_k = 1025;
  EXPECT_FALSE(decode_cache_evict_first(p, kL2));
  p.batch = 1;
  EXPECT_FALSE(decode_cache_evict_first(p, 0)) << "an L2 of unknown size";
  p.dtype = DType::fp32;  // twice the bytes: B 4 L 8k is 256 MiB, B 2 128 MiB
  p.batch = 4;
  p.max_seqlen_k = 8192;
  EXPECT_FALSE(decode_cache_evict_first(p, kL2));
  p.batch = 2;
  EXPECT_TRUE(decode_cache_evict_first(p, kL2));
}

TEST(KVCachePlan, NoEvictFirstAboveTheHeadDimsWhoseKernelCarriesIt) {
  KVCacheParams p = decode_params();
  p.batch = 1;
  p.max_seqlen_k = 1024;
  p.head_dim = p.head_dim_v = kDecodeEvictFirstMaxHeadDim;
  EXPECT_TRUE(decode_cache_evict_first(p, 50LL << 20));
  p.head_dim = p.head_dim_v = 256;  // its kernel has no registers for the policy
  EXPECT_FALSE(decode_cache_evict_first(p, 50LL << 20));
}

TEST(KVCachePlan, NoEvictFirstWhenSeveralRowBlocksReadTheCache) {
  KVCacheParams p = decode_params();
  p.batch = 1;
  p.seqlen_q_new = 4;  // 16 packed rows: one block
  EXPECT_TRUE(decode_cache_evict_first(p, 50LL << 20));
  p.seqlen_q_new = 5;  // 20 rows: two blocks read every key
  EXPECT_FALSE(decode_cache_evict_first(p, 50LL << 20));
}

}  // namespace
}  // namespace flashattn::core
