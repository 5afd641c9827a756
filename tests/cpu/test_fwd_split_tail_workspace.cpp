// The Hopper forward's cut-tile workspace (core/fwd_split_tail_workspace.hpp): which calls may cut tiles,
// and the bound forward_workspace_size() reports for them.
#include <gtest/gtest.h>

#include "core/fwd_split_tail_workspace.hpp"
#include "cuda/sm90/tile_fwd_sm90.hpp"

namespace flashattn::core {
namespace {

/// A dense, unmasked forward of `keys` keys and value head dim 128.
ForwardParams unmasked(int keys) {
  ForwardParams p;
  p.batch = 2;
  p.heads = 16;
  p.heads_kv = 16;
  p.head_dim = 128;
  p.head_dim_v = 128;
  p.max_seqlen_q = keys;
  p.max_seqlen_k = keys;
  return p;
}

TEST(FwdSplitTailWorkspace, TilesAreCutFrom2048KeysUpToDv128And4096Above) {
  EXPECT_FALSE(fwd_split_tail_sm90(2047, 128));
  EXPECT_TRUE(fwd_split_tail_sm90(2048, 128));
  EXPECT_TRUE(fwd_split_tail_sm90(2048, 64));
  EXPECT_FALSE(fwd_split_tail_sm90(4095, 256));
  EXPECT_TRUE(fwd_split_tail_sm90(4096, 256));
}

TEST(FwdSplitTailWorkspace, BoundCountsThreeWarpGroupsASm) {
  // Per slot and warpgroup: 64 x 128 fp32 of O and 128 x 2 of lse; 132 slots of 3 warpgroups, rounded up
  // to 256 bytes (13,381,632 already is), then an int flag each.
  const std::size_t partials = std::size_t{132} * 3 * (64 * 128 + 256) * 4;
  EXPECT_EQ(partials % 256, 0u);
  EXPECT_EQ(fwd_split_tail_workspace_bound(unmasked(4096), 132), partials + 132 * 3 * 4);
  // Every kernel's own size fits it: fewer warpgroups, at most a slot per SM.
  EXPECT_LE(fwd_split_tail_workspace_bytes(132, 2, 128), fwd_split_tail_workspace_bound(unmasked(4096), 132));
  EXPECT_EQ(fwd_split_tail_partials_bytes(1, 1, 64), std::size_t{(64 * 64 + 256) * 4});
}

TEST(FwdSplitTailWorkspace, NoneWhereNoKernelCutsTiles) {
  EXPECT_EQ(fwd_split_tail_workspace_bound(unmasked(2047), 132), 0u);
  EXPECT_EQ(fwd_split_tail_workspace_bound(unmasked(8192), 0), 0u);
  ForwardParams causal = unmasked(8192);
  causal.window_right = 0;
  causal.causal = true;
  EXPECT_EQ(fwd_split_tail_workspace_bound(causal, 132), 0u);
  ForwardParams window = unmasked(8192);
  window.window_left = 256;
  EXPECT_EQ(fwd_split_tail_workspace_bound(window, 132), 0u);
  const std::int32_t offsets[] = {0, 4096, 8192};
  ForwardParams varlen = unmasked(8192);
  varlen.cu_seqlens_q = offsets;
  varlen.cu_seqlens_k = offsets;
  EXPECT_EQ(fwd_split_tail_workspace_bound(varlen, 132), 0u);
  ForwardParams used = unmasked(8192);
  used.seqused_k = offsets;
  EXPECT_EQ(fwd_split_tail_workspace_bound(used, 132), 0u);
}

// The sm90 kernels of the short-key tiles at D 64 and 256 are built without the cut tiles' code, since no
// call that cuts runs on them: every unmasked length from the first that cuts picks a tile that keeps it.
TEST(FwdSplitTailWorkspace, EveryCallThatCutsRunsOnAKernelBuiltWithTheCode) {
  using cuda::FwdTileRegime;
  using cuda::sm90::fwd_regime_may_cut_tiles_sm90;
  using cuda::sm90::fwd_tile_regime_sm90;
  EXPECT_FALSE(fwd_regime_may_cut_tiles_sm90(64, 64, FwdTileRegime::short_keys));
  EXPECT_FALSE(fwd_regime_may_cut_tiles_sm90(256, 256, FwdTileRegime::short_keys));
  EXPECT_TRUE(fwd_regime_may_cut_tiles_sm90(128, 128, FwdTileRegime::short_keys));
  EXPECT_TRUE(fwd_regime_may_cut_tiles_sm90(128, 128, FwdTileRegime::short_keys_paired));
  EXPECT_TRUE(fwd_regime_may_cut_tiles_sm90(64, 64, FwdTileRegime::long_keys));
  const int dims[][2] = {{64, 64}, {96, 96}, {128, 128}, {192, 192}, {256, 256}, {192, 128}};
  for (const auto& [d, dv] : dims) {
    for (long long keys = fwd_split_tail_min_keys_sm90(dv); keys <= (1 << 20); keys += keys / 8 + 1) {
      ASSERT_TRUE(fwd_split_tail_sm90(keys, dv));
      const FwdTileRegime regime = fwd_tile_regime_sm90(d, dv, static_cast<int>(keys), /*causal=*/false);
      EXPECT_TRUE(fwd_regime_may_cut_tiles_sm90(d, dv, regime)) << "D " << d << " / " << dv << ", " << keys;
    }
  }
}

}  // namespace
}  // namespace flashattn::core
