// The Hopper CUDA forward kernel (sm90 path) against the fp64 oracle: the sweep of DESIGN.md §3 forced
// onto CudaPath::hopper for every built sm90 dtype, head dim and D != Dv pair, bitwise-identical reruns, and
// what RunInfo reports. Every test skips without an sm90 device or without a built sm90 kernel (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "flashattn/flashattn.hpp"
#include "forward_suite.hpp"

namespace flashattn::testing {
namespace {

constexpr Device kDevice{DeviceKind::cuda, 0};
constexpr Target kHopper{kDevice, CudaPath::hopper, 0};

TEST(CudaForwardSm90, SweepMatchesOracle) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  expect_sweep_matches_oracle(caps, kHopper);
}

TEST(CudaForwardSm90, RerunsAreBitwiseIdentical) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  expect_reruns_bitwise_identical(caps, kHopper);
}

TEST(CudaForwardSm90, RunInfoNamesTheHopperKernel) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  Case c;
  c.dtype = caps.dtypes.front();
  c.head_dim = caps.head_dims.front();
  c.seqlen_q = 200;
  c.seqlen_k = 300;
  // The automatic path takes the sm90 kernel whenever one is built for the key: no fallback.
  for (CudaPath path : {CudaPath::automatic, CudaPath::hopper}) {
    const CaseResult result = run_case(c, Op::forward, Target{kDevice, path, 0});
    ASSERT_TRUE(result.status.ok()) << summary(result);
    EXPECT_EQ(result.info.backend, Backend::cuda);
    EXPECT_EQ(result.info.kernel,
              std::string("fwd_sm90_") + to_string(c.dtype) + "_hd" + std::to_string(c.head_dim));
    EXPECT_TRUE(result.info.launched);
    EXPECT_GT(result.info.block_m, 0);
    EXPECT_GT(result.info.block_n, 0);
    EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
  }
}

/// A square forward call (Sq = Sk = seqlen) and the tile it must run on.
struct ExpectedTile {
  int seqlen;
  bool causal;
  int block_m, block_n;
};

/// Runs each case at `head_dim` on the sm90 path: correct against the oracle, on the expected tile.
void expect_tiles(const Capabilities& caps, int head_dim, std::initializer_list<ExpectedTile> expected) {
  for (const ExpectedTile& e : expected) {
    Case c;
    c.dtype = caps.dtypes.front();
    c.head_dim = head_dim;
    c.seqlen_q = e.seqlen;
    c.seqlen_k = e.seqlen;
    c.causal = e.causal;
    const CaseResult result = run_case(c, Op::forward, kHopper);
    ASSERT_TRUE(result.status.ok()) << summary(result);
    EXPECT_TRUE(result.passed) << summary(result);
    EXPECT_EQ(result.info.block_m, e.block_m) << "S " << e.seqlen << (e.causal ? " causal" : " full");
    EXPECT_EQ(result.info.block_n, e.block_n) << "S " << e.seqlen << (e.causal ? " causal" : " full");
  }
}

bool has_head_dim(const Capabilities& caps, int head_dim) {
  return std::find(caps.head_dims.begin(), caps.head_dims.end(), head_dim) != caps.head_dims.end();
}

// At D = 64 the tile follows the sequence's length (core::short_key_loop_sm90_d64): 128x128 up to 1024 keys,
// 192x96 beyond, with or without a causal mask; the sweep has rows of both tiles and checks their results.
TEST(CudaForwardSm90, HeadDim64TileFollowsTheKeyLoopLength) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  if (!has_head_dim(caps, 64)) GTEST_SKIP() << "no sm90 D = 64 kernel is built";
  expect_tiles(caps, 64,
               {{512, false, 128, 128},
                {1024, true, 128, 128},
                {1024, false, 128, 128},
                {1025, false, 192, 96},
                {2048, true, 192, 96}});
}

// At D = 256 the key tile follows the key loop's length (core::narrow_key_tile_sm90_d256): 128x64 up to 512
// keys per row on average, 128x80 beyond; the sweep has rows of both and checks their results.
TEST(CudaForwardSm90, HeadDim256TileFollowsTheKeyLoopLength) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  if (!has_head_dim(caps, 256)) GTEST_SKIP() << "no sm90 D = 256 kernel is built";
  expect_tiles(caps, 256,
               {{512, false, 128, 64}, {1024, true, 128, 64}, {1024, false, 128, 80}, {1100, true, 128, 80}});
}

// At D = 128 a 128x144 tile runs without a causal mask from 8192 keys per row
// (core::wide_key_tile_sm90_d128), the 128x128 tile elsewhere. The sweep's key loops are shorter, so the wide
// tile's correctness is checked here, with the features that change its masking and addressing: a partial
// last key tile, a sliding window (both interval ends inside the keys), softcap with ALiBi, GQA on strided
// views, varlen with short and empty sequences beside a long one.
TEST(CudaForwardSm90, HeadDim128TileFollowsTheMaskAndKeyLoopLength) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  if (!has_head_dim(caps, 128)) GTEST_SKIP() << "no sm90 D = 128 kernel is built";
  // One batch entry and one head (not forward_suite's dense_gqa_case, B 2 H 4): the fp64 oracle over
  // 8k-16k keys stays a few seconds per case.
  auto base = [](DType dtype, int seqlen_q, int seqlen_k) {
    Case c;
    c.dtype = dtype;
    c.head_dim = 128;
    c.seqlen_q = seqlen_q;
    c.seqlen_k = seqlen_k;
    return c;
  };
  struct Expected {
    Case c;
    int block_n;
  };
  std::vector<Expected> cases;
  for (DType dtype : caps.dtypes) {
    cases.push_back({base(dtype, 256, 8192), 144});
    Case gqa = base(dtype, 256, 8300);  // 8300 = 57 * 144 + 92; 2 tiles a head, packed or not: no packing
    gqa.heads = 4;
    gqa.heads_kv = 2;
    gqa.strided = true;
    cases.push_back({gqa, 144});
  }
  const DType dtype = caps.dtypes.front();
  Case window = base(dtype, 200, 9000);
  window.window_left = 4000;
  window.window_right = 100;
  cases.push_back({window, 144});
  Case mods = base(dtype, 130, 8200);
  mods.softcap = 30.0f;
  mods.alibi = true;
  cases.push_back({mods, 144});
  Case varlen = base(dtype, 0, 0);
  varlen.seqlens_q = {100, 0, 257, 3};
  varlen.seqlens_k = {8192, 5, 9001, 0};
  cases.push_back({varlen, 144});
  cases.push_back({base(dtype, 256, 8191), 128});
  Case causal = base(dtype, 128, 16384);
  causal.causal = true;
  cases.push_back({causal, 128});
  for (const Expected& e : cases) {
    const CaseResult result = run_case(e.c, Op::forward, kHopper);
    ASSERT_TRUE(result.status.ok()) << summary(result);
    EXPECT_TRUE(result.passed) << summary(result);
    EXPECT_EQ(result.info.block_m, 128) << summary(result);
    EXPECT_EQ(result.info.block_n, e.block_n) << summary(result);
  }
}

// Masked problems with many heads take their query tiles in pairs, a head's longest with its shortest
// (core::fwd_tiles_paired; cuda/sm90/tile_scheduler_sm90.hpp): B 5 x H 32 = 160 heads of 3 query tiles
// (S 300, 128-row tiles) give 320 pairs, at least two per SM on 132 SMs. The middle tile of each head goes
// alone after every pair. Checked with a causal mask (Sq = Sk and Sq < Sk) and a sliding window, without
// GQA (with it, D = 64, 128 and 256 would pack these rows into fewer tiles: GqaPackedTilesMatchOracle).
TEST(CudaForwardSm90, CausalProblemsOfManyHeadsTakeTheirTilesInPairs) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  for (int head_dim : caps.head_dims) {
    Case c;
    c.dtype = caps.dtypes.front();
    c.head_dim = head_dim;
    c.batch = 5;
    c.heads = 32;
    c.heads_kv = 32;
    c.seqlen_q = 300;
    c.seqlen_k = 300;
    c.causal = true;
    Case longer_keys = c;
    longer_keys.seqlen_k = 350;
    Case window = c;
    window.causal = false;
    window.window_left = 100;
    window.window_right = 0;
    expect_all_pass({c, longer_keys, window}, Op::forward, kHopper);
  }
}

/// A dense GQA case (B 2) in `dtype`: `heads` query heads on `heads_kv` kv heads.
Case gqa_case(DType dtype, int head_dim, int heads, int heads_kv, int seqlen_q, int seqlen_k,
              std::uint64_t seed) {
  return make_dense_case(dtype, head_dim, 2, heads, heads_kv, seqlen_q, seqlen_k, seed);
}

// GQA calls with few query rows per head pack the query heads of each kv head into the tiles' rows
// (core::pack_gqa_sm90; packed row r = token r / group of query head r % group), at D = 64, 128, 256. What
// the packing changes is checked: the token of a row under a causal mask (bottom-right, Sq < Sk) and a
// window with softcap, groups that are not powers of two and MQA, a packed tile holding a partial token
// group, many packed tiles under a causal mask (Sq = Sk), strided views (the per-row addresses of Q and O),
// varlen with empty sequences, a sequence without keys and used keys (V's tail rows), lse at each (head,
// token). RunInfo says how many heads share a tile; ALiBi (a slope per query head), shapes where packing
// saves no tile and shapes where its fewer tiles take no fewer rounds of the persistent CTAs run unpacked.
// The choices depend on the SM count (core::pack_gqa_sm90 counts rounds of one CTA per SM): the batches
// make them hold on 96 to 135 SMs (H100 PCIe 114, H100 / H200 SXM 132), where the packing cases' fewest
// unpacked tiles (136) take two rounds and the most packed tiles (96) one; elsewhere only the results are
// checked.
TEST(CudaForwardSm90, GqaPackedTilesMatchOracle) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  const auto props = cuda_device_properties(0);
  const bool choices_hold = props && props->multiprocessors >= 96 && props->multiprocessors <= 135;
  int tested = 0;
  for (int head_dim : {64, 128, 256}) {
    if (!has_head_dim(caps, head_dim)) continue;
    ++tested;
    for (DType dtype : caps.dtypes) {
      Case decode = gqa_case(dtype, head_dim, 32, 8, 1, 1000, 8101);
      decode.batch = 5;  // 160 unpacked tiles, 40 packed
      Case one_round = decode;
      one_round.batch = 3;  // 96 unpacked tiles, 24 packed: one round either way
      Case causal = gqa_case(dtype, head_dim, 16, 2, 7, 300, 8102);
      causal.batch = 9;  // 144 unpacked tiles, 18 packed
      causal.causal = true;
      Case window = gqa_case(dtype, head_dim, 8, 2, 64, 383, 8103);
      window.batch = 17;  // 136 unpacked tiles, 68 packed
      window.window_left = 50;
      window.window_right = 10;
      window.softcap = 30.0f;
      Case odd_group = gqa_case(dtype, head_dim, 6, 2, 40, 239, 8104);
      odd_group.batch = 23;  // 138 unpacked tiles, 46 packed
      odd_group.causal = true;
      odd_group.strided = true;
      Case mqa = gqa_case(dtype, head_dim, 16, 1, 5, 129, 8105);
      mqa.batch = 9;  // 144 unpacked tiles, 9 packed
      mqa.causal = true;
      Case partial_group = gqa_case(dtype, head_dim, 12, 4, 150, 200, 8106);  // 450 rows: 4 tiles
      partial_group.batch = 6;                                                // 144 unpacked tiles, 96 packed
      Case many_tiles = gqa_case(dtype, head_dim, 16, 2, 80, 80, 8107);       // 640 rows: 5 tiles
      many_tiles.batch = 9;                                                   // 144 unpacked tiles, 90 packed
      many_tiles.causal = true;
      many_tiles.strided = true;
      Case varlen = gqa_case(dtype, head_dim, 8, 2, 0, 0, 8108);
      // 17 sequences (136 unpacked tiles of 64 rows' sequences, 68 packed): three of each kind, then two.
      for (int repeat = 0; repeat < 3; ++repeat) {
        varlen.seqlens_q.insert(varlen.seqlens_q.end(), {0, 1, 17, 64, 3});
        varlen.seqlens_k.insert(varlen.seqlens_k.end(), {5, 0, 200, 383, 129});
        varlen.seqused_k.insert(varlen.seqused_k.end(), {5, 0, 150, 383, 100});
      }
      varlen.seqlens_q.insert(varlen.seqlens_q.end(), {64, 2});
      varlen.seqlens_k.insert(varlen.seqlens_k.end(), {383, 40});
      varlen.seqused_k.insert(varlen.seqused_k.end(), {300, 40});
      varlen.causal = true;
      struct Expected {
        Case c;
        int packed_heads;
      };
      Case alibi = causal;
      alibi.alibi = true;
      const std::vector<Expected> cases = {{decode, 4},
                                           {one_round, 0},
                                           {causal, 8},
                                           {window, 4},
                                           {odd_group, 3},
                                           {mqa, 16},
                                           {partial_group, 3},
                                           {many_tiles, 8},
                                           {varlen, 4},
                                           {alibi, 0},
                                           {gqa_case(dtype, head_dim, 8, 2, 128, 300, 8109), 0}};
      for (const Expected& e : cases) {
        const CaseResult result = run_case(e.c, Op::forward, kHopper);
        ASSERT_TRUE(result.status.ok()) << summary(result);
        EXPECT_TRUE(result.passed) << summary(result);
        if (choices_hold) EXPECT_EQ(result.info.packed_heads, e.packed_heads) << summary(result);
        EXPECT_EQ(result.info.kernel,
                  std::string("fwd_sm90_") + to_string(dtype) + "_hd" + std::to_string(head_dim));
        EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
      }
      EXPECT_TRUE(reruns_bitwise_equal(many_tiles, Op::forward, kHopper, 5)) << describe(many_tiles);
    }
  }
  if (tested == 0) GTEST_SKIP() << "no sm90 D = 64, 128 or 256 kernel is built";
}

// GQA calls at D = 128 whose query heads pair up (an even group, tiles not packed) and whose rows walk at
// least 8192 keys (core::pairs_walk_keys_enough_sm90) run as clusters of two CTAs, one query head each, that
// load each K / V tile once into both (the *_paired regimes, core::pairs_query_heads_sm90): RunInfo says
// cluster_size 2 wherever a pair fits every two SMs (H100 / H200 SXM: 132 SMs, 66 pairs). What the pairing
// changes is checked: groups of 2 and 4 (MQA) under a causal mask, a wide window with softcap and ALiBi (a
// slope per query head), key tiles that are not whole, varlen with short and empty sequences and used keys
// beside a long one, strided views, and bitwise reruns; an odd group, a short key walk (few keys or a narrow
// window) and a call without keys run unpaired, and so does every other head dim (no paired kernel built).
// One batch entry and few heads where the keys are many: the fp64 oracle stays a few seconds per case.
TEST(CudaForwardSm90, GqaQueryHeadPairsShareTheirKvLoads) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  const auto props = cuda_device_properties(0);
  const bool pairs_fit = props && props->multiprocessors == 132;
  for (int head_dim : caps.head_dims) {
    const bool pairs = head_dim == 128;
    const DType dtype = caps.dtypes.front();
    Case causal = make_dense_case(dtype, head_dim, 1, 4, 2, 130, 8300, 8201);
    causal.causal = true;
    Case mqa = make_dense_case(dtype, head_dim, 1, 4, 1, 100, 8195, 8202);
    mqa.causal = true;
    mqa.strided = true;
    Case mods = make_dense_case(dtype, head_dim, 1, 4, 2, 130, 9000, 8203);
    mods.window_left = 8300;  // 8311 keys a row: wide enough to pair
    mods.window_right = 10;
    mods.softcap = 30.0f;
    mods.alibi = true;
    Case narrow_window = make_dense_case(dtype, head_dim, 1, 4, 2, 200, 9000, 8204);
    narrow_window.window_left = 50;
    narrow_window.window_right = 10;
    Case varlen = make_dense_case(dtype, head_dim, 5, 4, 2, 0, 0, 8205);
    varlen.seqlens_q = {0, 1, 129, 130, 200};
    varlen.seqlens_k = {5, 0, 200, 8400, 129};
    varlen.seqused_k = {5, 0, 150, 8300, 100};
    varlen.causal = true;
    Case short_keys = gqa_case(dtype, head_dim, 8, 2, 300, 300, 8206);
    short_keys.causal = true;
    Case no_keys = gqa_case(dtype, head_dim, 4, 2, 0, 0, 8207);
    no_keys.seqlens_q = {3, 130};
    no_keys.seqlens_k = {0, 0};
    Case odd_group = make_dense_case(dtype, head_dim, 1, 3, 1, 100, 8200, 8208);
    odd_group.causal = true;
    struct Expected {
      Case c;
      bool paired;
    };
    for (const Expected& e : std::vector<Expected>{{causal, pairs},
                                                   {mqa, pairs},
                                                   {mods, pairs},
                                                   {varlen, pairs},
                                                   {narrow_window, false},
                                                   {short_keys, false},
                                                   {no_keys, false},
                                                   {odd_group, false}}) {
      const CaseResult result = run_case(e.c, Op::forward, kHopper);
      ASSERT_TRUE(result.status.ok()) << summary(result);
      EXPECT_TRUE(result.passed) << summary(result);
      EXPECT_EQ(result.info.packed_heads, 0) << summary(result);
      if (pairs_fit) EXPECT_EQ(result.info.cluster_size, e.paired ? 2 : 0) << summary(result);
      if (result.info.cluster_size == 2) EXPECT_EQ(result.info.num_ctas % 2, 0) << summary(result);
      EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
    }
    EXPECT_TRUE(reruns_bitwise_equal(mqa, Op::forward, kHopper, 5)) << describe(mqa);
    EXPECT_TRUE(reruns_bitwise_equal(varlen, Op::forward, kHopper, 5)) << describe(varlen);
  }
}

// Calls at D = 128 whose query heads do not pair run their query tiles in cluster pairs (two neighbouring
// tiles of one head, the same keys; core::pairs_query_tiles_sm90) under a full mask with an even count of
// query tiles and at least 8192 keys: keys that are not whole tiles, softcap with ALiBi, strided views, an
// odd group, bitwise reruns. Fewer keys, no keys, a causal mask, a window, varlen and an odd tile count run
// unpaired.
TEST(CudaForwardSm90, FullMaskQueryTilePairsShareTheirKvLoads) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  if (!has_head_dim(caps, 128)) GTEST_SKIP() << "no sm90 D = 128 kernel is built";
  const auto props = cuda_device_properties(0);
  const bool pairs_fit = props && props->multiprocessors == 132;
  const DType dtype = caps.dtypes.front();
  Case full = make_dense_case(dtype, 128, 1, 1, 1, 256, 8383, 8301);  // 2 query tiles
  Case mods = make_dense_case(dtype, 128, 1, 1, 1, 512, 8300, 8302);  // 4 query tiles
  mods.softcap = 30.0f;
  mods.alibi = true;
  mods.strided = true;
  Case odd_group = make_dense_case(dtype, 128, 1, 3, 1, 256, 8200, 8303);
  Case short_keys = make_dense_case(dtype, 128, 2, 4, 4, 512, 383, 8304);
  Case no_keys = make_dense_case(dtype, 128, 2, 4, 4, 256, 0, 8305);
  Case odd_tiles = make_dense_case(dtype, 128, 1, 1, 1, 300, 8200, 8306);  // 3 query tiles
  Case causal = full;
  causal.causal = true;
  Case window = full;
  window.window_left = 8300;
  window.window_right = 100;
  Case varlen = make_dense_case(dtype, 128, 3, 1, 1, 0, 0, 8307);
  varlen.seqlens_q = {256, 0, 256};
  varlen.seqlens_k = {8300, 5, 0};
  struct Expected {
    Case c;
    bool paired;
  };
  for (const Expected& e : std::vector<Expected>{{full, true},
                                                 {mods, true},
                                                 {odd_group, true},
                                                 {short_keys, false},
                                                 {no_keys, false},
                                                 {odd_tiles, false},
                                                 {causal, false},
                                                 {window, false},
                                                 {varlen, false}}) {
    const CaseResult result = run_case(e.c, Op::forward, kHopper);
    ASSERT_TRUE(result.status.ok()) << summary(result);
    EXPECT_TRUE(result.passed) << summary(result);
    if (pairs_fit) EXPECT_EQ(result.info.cluster_size, e.paired ? 2 : 0) << summary(result);
    EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
  }
  EXPECT_TRUE(reruns_bitwise_equal(mods, Op::forward, kHopper, 5)) << describe(mods);
}

// D != Dv pairs (D 192 / Dv 128) on the sm90 kernel of the pair: Q·Kᵀ over D, P·V and O over Dv, O staged
// in Q's shared memory (forward_suite.hpp's head_dim_pair_cases).
// Unmasked calls whose equal tiles end in a partial round of the persistent CTAs walk that round and the one
// before as a stream of key tiles (PersistentTileScheduler::Order::stream_start, from 2,048 keys at Dv <= 128
// and 4,096 above): tiles cut between two CTAs, the later key tiles' rows left in the workspace and merged by
// the CTA holding the tile's key tile 0. 4,200 keys (a partial last key tile, so the cuts fall inside tiles
// on both sides of the masked one). H 67 x 200 rows: 134 tiles on 132 SMs (or 114), whose rows fill every
// consumer warpgroup of D 64's 192-row tile and both of the 128-row tiles; H 133 x 8 rows with ALiBi and
// softcap, which the merge must keep. RunInfo counts the cut tiles; reruns bitwise identical (the merge's
// order is fixed). Few rows a head keep the fp64 oracle's work small.
TEST(CudaForwardSm90, PartialRoundsOfEqualTilesCutTilesBetweenCtas) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  for (int head_dim : caps.head_dims) {
    const Case plain = make_dense_case(caps.dtypes.front(), head_dim, 1, 67, 67, 200, 4200, 5001 + head_dim);
    Case scored = make_dense_case(caps.dtypes.front(), head_dim, 1, 133, 133, 8, 4200, 5101 + head_dim);
    scored.alibi = true;
    scored.softcap = 30.0f;
    for (const Case& c : {plain, scored}) {
      const CaseResult result = run_case(c, Op::forward, kHopper);
      EXPECT_TRUE(result.status.ok() && result.passed) << summary(result);
      EXPECT_GT(result.info.cut_tiles, 0) << summary(result);  // RunInfo says the tail was cut
    }
    EXPECT_TRUE(reruns_bitwise_equal(plain, Op::forward, kHopper, 5)) << describe(plain);
  }
  // Below 2,048 keys (4,096 from Dv 192) the tail is not cut (its partials would cost more than it saves).
  const int short_dim = caps.head_dims.front();
  const CaseResult short_keys = run_case(
      make_dense_case(caps.dtypes.front(), short_dim, 1, 133, 133, 8, short_dim <= 128 ? 2047 : 4095, 5201),
      Op::forward, kHopper);
  EXPECT_TRUE(short_keys.status.ok() && short_keys.passed) << summary(short_keys);
  EXPECT_EQ(short_keys.info.cut_tiles, 0) << summary(short_keys);
  // D 128 from 8,192 keys runs query tiles in cluster pairs: 67 pairs of tiles (H 67 x 2 tiles of 128 rows,
  // the second of 1 row) on 66 pairs of SMs, each pair's CTAs taking the same pieces.
  if (!has_head_dim(caps, 128)) return;
  const auto props = cuda_device_properties(0);
  const Case paired = make_dense_case(caps.dtypes.front(), 128, 1, 67, 67, 129, 8300, 5401);
  const CaseResult result = run_case(paired, Op::forward, kHopper);
  EXPECT_TRUE(result.status.ok() && result.passed) << summary(result);
  if (props && props->multiprocessors == 132) {
    EXPECT_EQ(result.info.cluster_size, 2) << summary(result);
    EXPECT_GT(result.info.cut_tiles, 0) << summary(result);
  }
  EXPECT_TRUE(reruns_bitwise_equal(paired, Op::forward, kHopper, 3)) << describe(paired);
}

// The cut tiles' workspace from the caller (forward_workspace_size() bytes, one buffer with stale contents
// for every rerun): the oracle passes and reruns agree bitwise; a workspace smaller than the call needs is
// refused with an error naming it, and out stays untouched.
TEST(CudaForwardSm90, CutTilesTakeTheCallersWorkspace) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  Target target = kHopper;
  target.caller_workspace = true;
  const Case c = make_dense_case(caps.dtypes.front(), caps.head_dims.front(), 1, 133, 133, 8, 4200, 5501);
  const CaseResult result = run_case(c, Op::forward, target);
  EXPECT_TRUE(result.status.ok() && result.passed) << summary(result);
  EXPECT_GT(result.info.cut_tiles, 0) << summary(result);
  EXPECT_TRUE(reruns_bitwise_equal(c, Op::forward, target, 3)) << describe(c);

  DeviceTensors device(target.device);
  CaseTensors t = make_case_tensors(c, Op::forward);
  ForwardArgs too_small = forward_args(c, t, device, target);
  ASSERT_GT(too_small.workspace_bytes, 64u);
  too_small.workspace_bytes = 64;
  const Status refused = forward(too_small);
  EXPECT_EQ(refused.code(), StatusCode::invalid_argument) << refused.to_string();
  EXPECT_EQ(refused.message().rfind("workspace: 64 bytes given", 0), 0u) << refused.message();
  EXPECT_NE(refused.message().find("forward_workspace_size"), std::string::npos) << refused.message();
  device.download_outputs();
  const auto elements = static_cast<std::int64_t>(t.out.size_bytes() / element_size(t.out.dtype()));
  std::int64_t written = 0;
  for (std::int64_t i = 0; i < elements; ++i) written += t.out.is_poisoned(i) ? 0 : 1;
  EXPECT_EQ(written, 0) << "out elements written by a refused call";
}

TEST(CudaForwardSm90, HeadDimPairsMatchOracle) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::forward);
  if (caps.head_dim_pairs.empty()) GTEST_SKIP() << "no sm90 D != Dv forward kernel is built";
  expect_head_dim_pairs_match_oracle(caps, kHopper, "fwd_sm90_");
}

}  // namespace
}  // namespace flashattn::testing
