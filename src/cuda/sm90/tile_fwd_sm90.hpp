// flashattn — compile-time tile configuration of the Hopper (sm90) forward kernel, one per head dim (D = Dv)
// and per (D, Dv) pair.
//
// Limits behind every choice: 227 KB of shared memory per CTA; 64K registers per SM shared by
// 128 * (consumer_warpgroups + 1) threads, rebalanced with setmaxnreg (producer 24; consumers 240 each
// with two consumer warpgroups, 160 with three: 64512 either way, within the registers the CTA is launched
// with, register_split_fits); a wgmma instruction covers 64 rows of one warpgroup and N <= 256 columns, so
// each consumer warpgroup owns 64 query rows of the CTA.
//
// Ablation builds (docs/PERF.md) compile every sm90 kernel with one design choice turned off, so that its
// effect is measured rather than asserted: configure with -DFLASHATTN_SM90_ABLATION=<name> (CMake), and
// RunInfo's kernel name carries "+<name>" so that such a result can never pass for the real kernel.
#pragma once

#include "core/heuristics.hpp"
#include "cuda/common/fwd_tile_regime.hpp"

namespace flashattn::cuda::sm90 {

/// How one CTA tiles the problem: Q (BLOCK_M, HEAD_DIM) stays in shared memory, K and V stream through
/// rings of (BLOCK_N, HEAD_DIM) tiles.
struct FwdTileSm90 {
  int block_m;              ///< Query rows per CTA: 64 per consumer warpgroup.
  int block_n;              ///< Key rows per main-loop step (the N of S = Q·Kᵀ, the K of O += P·V).
  int stages_k;             ///< Depth of the K ring.
  int stages_v;             ///< Depth of the V ring (V is held longest: released after the softmax).
  int consumer_warpgroups;  ///< Warpgroups running the math; one more warpgroup issues the TMA loads.
  bool intra_warpgroup_overlap = true;  ///< Softmax of tile n under the P·V wgmma of tile n + 1.
  bool pingpong = true;                 ///< Consumer warpgroups take turns issuing their wgmmas.
  /// Buffers of Q (1 to 3). O is staged in the tile's Q buffer, so with one the next tile's Q can load only
  /// after this tile's O has left; with two it loads a tile ahead, under the current tile's main loop (from
  /// the current tile's first softmax on, when the previous tile's O has left its buffer); with three, two
  /// tiles ahead, so that it is there for tiles shorter than its load.
  int q_stages = 2;
  /// One Q buffer only: the epilogue stages O in the stages of the tile's last K and V tiles instead of the
  /// Q buffer, so Q goes back after the tile's last Q·Kᵀ and the next tile's Q loads under its last steps.
  bool o_in_rings = false;
  /// GQA packing: the tile's rows are (token, query head) pairs of one kv head, token-major (packed row
  /// r = token * group + head in group), so a call with few query rows fills its tiles. Such rows are not
  /// one box of Q or O in global memory: the consumers load their own Q rows and store their O rows with
  /// 16-byte vectors (row by row), and the producer loads K and V only.
  bool pack_gqa = false;
  /// Every exp2_on_fma_period-th column of a thread's scores is exponentiated on the FMA pipe
  /// (core::exp2_polynomial) rather than by MUFU.EX2 (0: none). At D = 64 a step's exponentials take the MUFU
  /// unit (16 a clock and SM) as long as its two products take the tensor cores (256 FLOP per score at 4,096
  /// a clock), so the softmax is the longer phase. A polynomial costs ~13 issue slots where MUFU costs one
  /// slot and 8 of its pipe's (in 128ths of an SM clock per score), and the rest of the softmax ~5.5 slots:
  /// moving a share f balances the two at f ~ 1/12 (MUFU 8 (1 - f) against issue 6.5 + 12 f), and past it
  /// the issue slots bind instead. Measured (docs/PERF.md, session 44, H100): on D = 64's 128x128 tile 1/16
  /// +1.2 ... +4.1% at S 512 / 1k in two A/Bs, 1/32 +0.5 ... +1.5%, 1/10 and 1/8 -3 ... 0%; on the 192x96
  /// tile, where a third warpgroup's GEMMs already cover each softmax, 1/16 cost 1.1-2.6%. So only the
  /// two-warpgroup D = 64 tile takes it, at 1/16 (kExp2OnFmaPeriodD64).
  int exp2_on_fma_period = 0;
  /// Cluster pairs (FwdTileRegime::*_paired): the tile's kernel runs as clusters of two CTAs that compute
  /// two query heads of one kv head and load each K / V tile once, by TMA multicast into both CTAs' stages.
  bool kv_multicast = false;
};

/// The design choices an ablation build turns off (FLASHATTN_SM90_ABLATION).
enum class FwdAblationSm90 {
  none,
  no_pingpong,
  no_overlap,
  no_overlap_no_pingpong,
  stages_3,
  v_stages_2,
  two_consumer_warpgroups,
  q_stages_1,
  block_n_176,
  block_n_128,
  k_stages_1_v_stages_3,
  sequential_d256,
  wider_short_tiles
};

#if !defined(FLASHATTN_SM90_ABLATION)
inline constexpr FwdAblationSm90 kFwdAblationSm90 = FwdAblationSm90::none;
#else
inline constexpr FwdAblationSm90 kFwdAblationSm90 = FwdAblationSm90::FLASHATTN_SM90_ABLATION;
#endif

/// "+<name>" of an ablation build, "" for the real kernel.
constexpr const char* fwd_ablation_suffix_sm90() {
  switch (kFwdAblationSm90) {
    case FwdAblationSm90::no_pingpong:
      return "+no_pingpong";
    case FwdAblationSm90::no_overlap:
      return "+no_overlap";
    case FwdAblationSm90::no_overlap_no_pingpong:
      return "+no_overlap_no_pingpong";
    case FwdAblationSm90::stages_3:
      return "+stages_3";
    case FwdAblationSm90::v_stages_2:
      return "+v_stages_2";
    case FwdAblationSm90::two_consumer_warpgroups:
      return "+two_consumer_warpgroups";
    case FwdAblationSm90::q_stages_1:
      return "+q_stages_1";
    case FwdAblationSm90::block_n_176:
      return "+block_n_176";
    case FwdAblationSm90::block_n_128:
      return "+block_n_128";
    case FwdAblationSm90::k_stages_1_v_stages_3:
      return "+k_stages_1_v_stages_3";
    case FwdAblationSm90::sequential_d256:
      return "+sequential_d256";
    case FwdAblationSm90::wider_short_tiles:
      return "+wider_short_tiles";
    default:
      return "";
  }
}

/// D = 64's FwdTileSm90::exp2_on_fma_period on its short-key 128x128 tile: 1 score in 16 of a thread's row
/// (2 of its 32 columns).
inline constexpr int kExp2OnFmaPeriodD64 = 16;

/// The tile of head dims (`head_dim`, `head_dim_v`) in `regime` as built (0 fields for a (head dims,
/// regime) with no sm90 kernel).
constexpr FwdTileSm90 fwd_tile_sm90_design(int head_dim, int head_dim_v, FwdTileRegime regime) {
  if (head_dim_v != head_dim) {
    // D = 192 with Dv = 128 (the query-key dim of multi-head latent attention's prefill: 128 + a 64-wide
    // rotary part, against values of 128), one regime. Q·Kᵀ is D = 192's, P·V and O are D = 128's:
    // 128x128, 1 Q + 2 K + 2 V stages: Q 48 KB + 2 x K 48 KB + 2 x V 32 KB = 208 KB (a second Q buffer or a
    // third V stage does not fit); S 64, O 64 and P 32 registers per thread, as D = 128's 128-key tile.
    // O (64 x 128 per warpgroup) is staged in the warpgroup's block of the Q buffer (64 x 192). Not yet
    // measured against the 112-key alternative (3 V stages in 216 KB).
    if (head_dim == 192 && head_dim_v == 128 && regime == FwdTileRegime::long_keys) {
      FwdTileSm90 tile{128, 128, 2, 2, 2};
      tile.q_stages = 1;
      return tile;
    }
    return {0, 0, 0, 0, 0};
  }
  if (regime == FwdTileRegime::short_keys) {
    switch (head_dim) {
      // D = 64, short key loops (core::short_key_loop_sm90_d64 says when and why): 128x128 with two
      // consumer warpgroups (240 registers: S 64 + O 32 + P 32), 3 Q + 2 K + 3 V stages of 16 KB = 128 KB.
      // The third Q buffer loads Q two tiles ahead: causal tiles of S 512 are 1-4 key steps long. One score
      // in 16 is exponentiated on the FMA pipe: two warpgroups cannot hide a softmax as long as the GEMMs.
      case 64: {
        FwdTileSm90 tile{128, 128, 2, 3, 2};
        tile.q_stages = 3;
        tile.exp2_on_fma_period = kExp2OnFmaPeriodD64;
        return tile;
      }
      // D = 128 wherever the 144-key tile does not pay (core::wide_key_tile_sm90_d128): 128x128, 2 Q + 2 K
      // + 3 V stages: 2 x Q 32 KB + 2 x K 32 KB + 3 x V 32 KB = 224 KB; S and O take 64 fp32 each per
      // thread, P 32 registers. A V stage stays busy from its P·V's issue to the end of the softmax that
      // runs under it, a K stage only until its S landed: the third V stage keeps the producer a full step
      // ahead (docs/PERF.md, v_stages_2 ablation). The second Q buffer takes v4's O buffer's place so the
      // next tile's Q loads a tile ahead; with the per-warpgroup O staging it measured +3.2% (geometric
      // mean) over v4's own O buffer (docs/PERF.md, v5).
      case 128:
        return {128, 128, 2, 3, 2};
      // D = 256, short key loops (core::narrow_key_tile_sm90_d256): 128x64, 1 Q + 2 K + 3 V stages: Q 64 KB
      // + 2 x K 32 KB + 3 x V 32 KB = 224 KB; O takes 128 fp32 per thread, S 32. The third V stage, which
      // the 80-key tile below has no room for, keeps the producer ahead through the first steps of a tile,
      // which is most of a short tile.
      case 256: {
        FwdTileSm90 tile{128, 64, 2, 3, 2};
        tile.q_stages = 1;
        tile.o_in_rings = true;
        return tile;
      }
      default:
        return {0, 0, 0, 0, 0};
    }
  }
  if (regime == FwdTileRegime::packed_gqa) {
    // GQA packing (core::pack_gqa_sm90 says when) at the head dims of today's GQA models: the short-key
    // tiles with two consumer warpgroups (a call with few query rows per head has few tiles, and 128 rows
    // split them finer than D = 64's 192) and one Q buffer: the consumers write Q themselves at the tile's
    // start, so a second buffer would let nothing load ahead, and O is staged in it (no o_in_rings: the next
    // Q waits for the consumers anyway). D = 64: 128x128, Q 16 KB + 2 x K 16 KB + 3 x V 16 KB = 96 KB;
    // D = 128: 128x128, Q 32 KB + 2 x K 32 KB + 3 x V 32 KB = 192 KB; D = 256: 128x64, Q 64 KB + 2 x K 32 KB
    // + 3 x V 32 KB = 224 KB.
    FwdTileSm90 tile{128, 128, 2, 3, 2};
    if (head_dim == 256) {
      tile.block_n = 64;
    } else if (head_dim != 64 && head_dim != 128) {
      return {0, 0, 0, 0, 0};
    }
    tile.q_stages = 1;
    tile.pack_gqa = true;
    return tile;
  }
  switch (head_dim) {
    // 192x96 (three consumer warpgroups), 3 Q + 2 K + 3 V stages: 3 x Q 24 KB + 2 x K 12 KB + 3 x V 12 KB
    // = 132 KB (the third Q buffer loads Q two tiles ahead). At D = 64 the softmax of a score tile takes
    // longer than one warpgroup's two GEMMs on it, so two warpgroups cannot hide it under each other's; with
    // three, two warpgroups' GEMMs cover one softmax. Three consumer warpgroups get 160 registers each: S 48
    // + O 32 + P 24 fit without spills (a 128-key tile, S 64 + P 32, spills 144 bytes in the main loop).
    case 64: {
      FwdTileSm90 tile{192, 96, 2, 3, 3};
      tile.q_stages = 3;
      return tile;
    }
    // 128x128, 2 Q + 2 K + 3 V stages: 2 x Q 24 KB + 2 x K 24 KB + 3 x V 24 KB = 168 KB, 64-byte swizzle
    // (rows of 192 bytes); S 64, O 48, P 32 registers per thread.
    case 96:
      return {128, 128, 2, 3, 2};
    // 128x144 without a causal mask from 8192 keys per row (core::wide_key_tile_sm90_d128 says why): 11%
    // fewer key steps than 128 keys, so less softmax bookkeeping, O rescaling and waiting per key. 2 Q +
    // 2 K + 2 V stages: 2 x Q 32 KB + 2 x K 36 KB + 2 x V 36 KB = 208 KB (a third V stage no longer fits
    // beside the second Q buffer); S 72, O 64 and P 36 registers per thread, no spills. 176 keys
    // (FlashAttention-3's choice) fit one Q buffer only and spill 140 bytes (ablation block_n_176).
    case 128:
      return {128, 144, 2, 2, 2};
    // 128x112, 1 Q + 2 K + 2 V stages: Q 48 KB + 2 x K 42 KB + 2 x V 42 KB = 216 KB (no room for a second
    // Q); O takes 96 fp32 per thread, so S stays at 56 (and P 28) to keep the 240-register budget.
    case 192: {
      FwdTileSm90 tile{128, 112, 2, 2, 2};
      tile.q_stages = 1;
      return tile;
    }
    // 128x80 beyond short key loops, 1 Q + 2 K + 2 V stages: Q 64 KB + 2 x K 40 KB + 2 x V 40 KB = 224 KB
    // (no room for a second Q or a third V stage; 96 keys do not fit); O takes 128 fp32 per thread, S 40,
    // P 20, no spills. Against the 64-key tile it takes 20% fewer key steps, each reading Q from shared
    // memory once (Q's 64 KB are read per step whatever its width): +1.9% at 1k keys per row to +5.3% at
    // 16k (docs/PERF.md, D = 256). What bounded it at 16k (ncu, session 15, V still in 1 KB TMA copies):
    // the tensor pipe active 72% of the cycles, shared memory 52%, the consumers waiting for V in 9% of the
    // stall samples; with whole V boxes it runs 95% of the matmul ceiling. cuDNN's design (128x128, one
    // stage each, steps in sequence with P in S's registers; ablation sequential_d256) measures the same.
    case 256: {
      FwdTileSm90 tile{128, 80, 2, 2, 2};
      tile.q_stages = 1;
      tile.o_in_rings = true;
      return tile;
    }
    default:
      return {0, 0, 0, 0, 0};
  }
}

/// The tile of (`head_dim`, `head_dim_v`, `regime`, unpaired) with the ablation build's choice turned off.
/// The ablations act on D = Dv tiles without GQA packing only.
constexpr FwdTileSm90 fwd_tile_sm90_ablated(int head_dim, int head_dim_v, FwdTileRegime regime) {
  FwdTileSm90 tile = fwd_tile_sm90_design(head_dim, head_dim_v, regime);
  if (tile.block_m == 0 || head_dim_v != head_dim || tile.pack_gqa) return tile;
  switch (kFwdAblationSm90) {
    case FwdAblationSm90::no_pingpong:
      tile.pingpong = false;
      break;
    case FwdAblationSm90::no_overlap:
      tile.intra_warpgroup_overlap = false;
      break;
    case FwdAblationSm90::no_overlap_no_pingpong:
      tile.intra_warpgroup_overlap = false;
      tile.pingpong = false;
      break;
    case FwdAblationSm90::stages_3:
      tile.stages_k = head_dim == 256 ? tile.stages_k : 3;  // D = 256: a third K stage does not fit
      if (head_dim == 128) tile.q_stages = 1;               // D = 128: only in the second Q buffer's place
      break;
    case FwdAblationSm90::v_stages_2:
      tile.stages_v = 2;
      break;
    case FwdAblationSm90::two_consumer_warpgroups:
      if (tile.consumer_warpgroups == 3) tile = {128, 128, tile.stages_k, tile.stages_v, 2};  // v3's tile
      break;
    case FwdAblationSm90::q_stages_1:
      tile.q_stages = 1;
      break;
    // D = 128's wide-key tile replaced: by 176 keys (FlashAttention-3's non-causal choice, room for one Q
    // buffer and 2 K + 2 V stages, 208 KB), or by the 128-key tile of the other regime.
    case FwdAblationSm90::block_n_176:
      if (head_dim == 128 && regime == FwdTileRegime::long_keys) tile = {128, 176, 2, 2, 2, true, true, 1};
      break;
    case FwdAblationSm90::block_n_128:
      if (head_dim == 128 && regime == FwdTileRegime::long_keys) tile = {128, 128, 2, 3, 2};
      break;
    // The long-key tiles of D = 128 (144 keys) and D = 256 (80 keys) trade their second K stage for a third
    // V stage in the same shared memory (at S 16k their consumers wait for V in 5-9% of the stall samples).
    // Measured 0.66-0.72x (docs/PERF.md, session 16): with one K stage the next K is requested only once
    // the later warpgroup's S landed, a third of a ping-pong turn before the earlier one needs it.
    case FwdAblationSm90::k_stages_1_v_stages_3:
      if ((head_dim == 128 || head_dim == 256) && regime == FwdTileRegime::long_keys) {
        tile.stages_k = 1;
        tile.stages_v = 3;
      }
      break;
    // D = 256 as cuDNN 9.19 runs it (its SASS under ncu, docs/PERF.md session 17): 128x128, one stage each
    // of Q, K and V (64 KB each, 192 KB), every step's S, softmax and P·V in sequence with P in S's
    // registers (S 64 + O 128 fp32 per thread), the ping-pong alone hiding the softmax.
    case FwdAblationSm90::sequential_d256:
      if (head_dim == 256) tile = {128, 128, 1, 1, 2, false, true, 1};
      break;
    // The long-key tiles of D = 128 (144 keys) and D = 256 (80 keys) at every key-loop length: the
    // thresholds between the regimes were measured with V in 1 KB TMA copies. (D = 64's short-key tile
    // widened to 192 keys spills 112 bytes.)
    case FwdAblationSm90::wider_short_tiles:
      if (regime == FwdTileRegime::short_keys && (head_dim == 128 || head_dim == 256))
        tile = fwd_tile_sm90_design(head_dim, head_dim, FwdTileRegime::long_keys);
      break;
    default:
      break;
  }
  return tile;
}

/// The unpaired regime whose tile a paired one runs (itself for the others).
constexpr FwdTileRegime fwd_unpaired_regime(FwdTileRegime regime) {
  switch (regime) {
    case FwdTileRegime::long_keys_paired:
      return FwdTileRegime::long_keys;
    case FwdTileRegime::short_keys_paired:
      return FwdTileRegime::short_keys;
    default:
      return regime;
  }
}

/// The paired regime of `regime` (long_keys or short_keys).
constexpr FwdTileRegime fwd_paired_regime(FwdTileRegime regime) {
  return regime == FwdTileRegime::short_keys ? FwdTileRegime::short_keys_paired
                                             : FwdTileRegime::long_keys_paired;
}

/// The tile of (`head_dim`, `head_dim_v`, `regime`) as fwd_tile_sm90_ablated gives it, for a paired regime
/// its unpaired tile run by cluster pairs: built at D = 128 only (the head dim of today's GQA models; each
/// paired regime is one more kernel to compile), and not for tiles that stage O in their K / V stages (a
/// held stage would block the pair's next load into it until the next tile's start) or pack GQA heads
/// (whose tiles already hold every query head of a kv head). Measured in sessions 45-46 (docs/PERF.md).
constexpr FwdTileSm90 fwd_tile_sm90(int head_dim, int head_dim_v, FwdTileRegime regime) {
  if (fwd_unpaired_regime(regime) == regime) return fwd_tile_sm90_ablated(head_dim, head_dim_v, regime);
  FwdTileSm90 tile = fwd_tile_sm90_ablated(head_dim, head_dim_v, fwd_unpaired_regime(regime));
  if (head_dim != 128 || head_dim_v != 128 || tile.block_m == 0 || tile.o_in_rings || tile.pack_gqa) {
    return {0, 0, 0, 0, 0};
  }
  tile.kv_multicast = true;
  return tile;
}

/// The tile regime of a forward call: at D = 64 the short-key tile for short key loops
/// (core::short_key_loop_sm90_d64), at D = 128 the long-key (144-key) tile only where
/// core::wide_key_tile_sm90_d128 says it pays, at D = 256 the short-key (64-key) tile where
/// core::narrow_key_tile_sm90_d256 says so; the long-key tile elsewhere (every D != Dv pair) and wherever
/// the regime asked for has no tile.
constexpr FwdTileRegime fwd_tile_regime_sm90(int head_dim, int head_dim_v, int max_seqlen_k, bool causal) {
  FwdTileRegime regime = FwdTileRegime::long_keys;
  if (head_dim == 64 && core::short_key_loop_sm90_d64(max_seqlen_k)) regime = FwdTileRegime::short_keys;
  if (head_dim == 128 && !core::wide_key_tile_sm90_d128(max_seqlen_k, causal)) {
    regime = FwdTileRegime::short_keys;
  }
  if (head_dim == 256 && core::narrow_key_tile_sm90_d256(max_seqlen_k, causal))
    regime = FwdTileRegime::short_keys;
  return fwd_tile_sm90(head_dim, head_dim_v, regime).block_m > 0 ? regime : FwdTileRegime::long_keys;
}

/// Whether a call that cuts tiles (core::fwd_split_tail_sm90: unmasked, one length, from
/// core::fwd_split_tail_min_keys_sm90 keys) can run on the tile of `regime`. A short-key tile serves key
/// loops below a length (fwd_tile_regime_sm90 picks it up to a key count, never above), so where that regime
/// is no longer picked at the fewest keys that cut, it never cuts: at D = 64 (up to 1,024 keys against 2,048)
/// and D = 256 (up to 512 unmasked keys against 4,096), but not at D = 128 (up to 8,191). Its kernel is then
/// built without the cut tiles' code, which cost the calls that cut nothing 1.3% at D = 64 and 0.5% at
/// D = 128 (docs/PERF.md, session 54). Measured without it (session 55, H100, against the kernels with it):
/// D = 64 S 512 / 1k full +1.4 / +1.0%, causal +1.7 / +1.1%; D = 256 +0.4 ... +0.9%.
constexpr bool fwd_regime_may_cut_tiles_sm90(int head_dim, int head_dim_v, FwdTileRegime regime) {
  if (fwd_unpaired_regime(regime) != FwdTileRegime::short_keys) return true;
  const long long fewest_keys = core::fwd_split_tail_min_keys_sm90(head_dim_v);
  return fwd_tile_regime_sm90(head_dim, head_dim_v, static_cast<int>(fewest_keys), /*causal=*/false) ==
         FwdTileRegime::short_keys;
}

}  // namespace flashattn::cuda::sm90
