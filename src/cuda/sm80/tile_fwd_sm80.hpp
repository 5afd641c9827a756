// flashattn — compile-time tile configuration of the portable (sm80) forward kernel, one or two per head
// dim, and which of two a call takes.
//
// The numbers were chosen for the largest sm80+ parts (A100: 164 KB shared memory per SM, H100/H200:
// 227 KB per block, 228 KB per SM) and for 255 registers per thread at most (the O accumulator,
// BLOCK_M x HEAD_DIM fp32, lives in registers: BLOCK_M * HEAD_DIM / threads values per thread).
#pragma once

#include "core/heuristics.hpp"
#include "cuda/common/fwd_tile_regime.hpp"

namespace flashattn::cuda::sm80 {

/// How one CTA tiles the problem. Shared memory holds Q (BLOCK_M, HEAD_DIM) and one tile each of K and V
/// (BLOCK_N, HEAD_DIM): the V load overlaps Q·Kᵀ and the next K load overlaps the softmax and P·V.
struct FwdTile {
  int block_m;      ///< Query rows per CTA; warps split them, 16 rows per warp per MMA step.
  int block_n;      ///< Key rows per main-loop step.
  int warps;        ///< Warps per CTA.
  int ctas_per_sm;  ///< CTAs the registers and shared memory let one SM hold (the launch bound).
  /// The main loop visits the unmasked key tiles last rather than in one descending walk
  /// (mainloop_fwd_sm80_cpasync_mma.cuh says why); chosen per tile from its SASS and measured.
  bool bulk_last = false;
};

/// The tile of head dims (`head_dim`, `head_dim_v`) in `regime` (0 fields for a (head dims, regime) with no
/// kernel).
constexpr FwdTile fwd_tile(int head_dim, int head_dim_v, FwdTileRegime regime) {
  if (head_dim_v != head_dim) {
    // D = 192 with Dv = 128: D = 192's 128x64 tile with 8 warps (Q 48 KB + K 24 KB + V 16 KB = 88 KB); O
    // takes 64 fp32 per thread, S 32. Not yet measured.
    return head_dim == 192 && head_dim_v == 128 && regime == FwdTileRegime::long_keys ? FwdTile{128, 64, 8, 1}
                                                                                      : FwdTile{0, 0, 0, 0};
  }
  if (regime == FwdTileRegime::short_keys) {
    // 64x64 with 4 warps: 128 fp32 of O per thread as in the 128x64 tile, 96 KB smem, so two CTAs
    // share an SM and one's first loads and O store overlap the other's main loop. Bulk last: with the
    // bulk first, its loop spilled the softmax row sums (session 9: +1.8-3.8% at D 256 S <= 1k).
    return head_dim == 256 ? FwdTile{64, 64, 4, 2, true} : FwdTile{0, 0, 0, 0};
  }
  // GQA packing and cluster pairs: the sm90 forward only.
  if (regime != FwdTileRegime::long_keys && regime != FwdTileRegime::short_keys) return {0, 0, 0, 0};
  switch (head_dim) {
    // 128x128 (FlashAttention-2's choice): 64 fp32 of O plus 128 of S per thread; the wide key
    // tile halves the barriers and softmax bookkeeping per MMA. 48 KB smem.
    case 64:
      return {128, 128, 4, 2};
    // 128x64: 96 fp32 of O per thread plus a 32-value S tile stays under 255 registers; 48 KB smem.
    case 96:
      return {128, 64, 4, 2};
    // 128x64 with 4 warps: 128 fp32 of O per thread; a 128-key tile would add 32 S registers and spill.
    // Bulk last: it frees the registers to load K's fragments ahead of their MMAs (session 15: +2.2-6.0%
    // on every D 128 cell).
    case 128:
      return {128, 64, 4, 2, true};
    // 128x64 with 8 warps: with 4 warps O alone would take 192 registers per thread; 96 KB smem.
    case 192:
      return {128, 64, 8, 1};
    // 128x64 with 8 warps: 128 fp32 of O per thread; 128 KB smem (Q 64 KB, K and V 32 KB each). Each
    // K/V tile read from L2 serves 128 query rows, half the traffic of the 64x64 tile at long sequences.
    case 256:
      return {128, 64, 8, 1};
    default:
      return {0, 0, 0, 0};
  }
}

/// The tile regime of a forward call: the short-key tile where the head dim has one and the key loop is
/// short (core::short_key_loop says when and why).
constexpr FwdTileRegime fwd_tile_regime(int head_dim, int head_dim_v, int max_seqlen_k, bool causal) {
  return core::short_key_loop(max_seqlen_k, causal) &&
                 fwd_tile(head_dim, head_dim_v, FwdTileRegime::short_keys).block_m > 0
             ? FwdTileRegime::short_keys
             : FwdTileRegime::long_keys;
}

}  // namespace flashattn::cuda::sm80
