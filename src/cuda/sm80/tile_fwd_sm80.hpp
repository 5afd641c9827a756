// flashattn — compile-time tile configuration of the portable (sm80) forward kernel, one per head dim.
//
// The numbers were chosen for the largest sm80+ parts (A100: 164 KB shared memory per SM, H100/H200:
// 227 KB per block) and for 255 registers per thread at most (one CTA per SM must be able to hold the
// O accumulator, BLOCK_M x HEAD_DIM fp32, in registers: BLOCK_M * HEAD_DIM / threads values each).
#pragma once

namespace flashattn::cuda::sm80 {

/// How one CTA tiles the problem. Shared memory holds Q (BLOCK_M, HEAD_DIM) and one tile each of K and V
/// (BLOCK_N, HEAD_DIM): the V load overlaps Q·Kᵀ and the next K load overlaps the softmax and P·V.
struct FwdTile {
  int block_m;  ///< Query rows per CTA; warps split them, 16 rows per warp per MMA step.
  int block_n;  ///< Key rows per main-loop step.
  int warps;    ///< Warps per CTA.
};

/// The tile of head dim `head_dim` (0 fields for a head dim with no kernel).
constexpr FwdTile fwd_tile(int head_dim) {
  switch (head_dim) {
    // 128x128 (FlashAttention-2's choice): 64 fp32 of O plus 128 of S per thread; the wide key
    // tile halves the barriers and softmax bookkeeping per MMA. 48 KB smem.
    case 64:
      return {128, 128, 4};
    // 128x64: 96 fp32 of O per thread plus a 32-value S tile stays under 255 registers; 48 KB smem.
    case 96:
      return {128, 64, 4};
    // 128x64 with 4 warps: 128 fp32 of O per thread; a 128-key tile would add 32 S registers and spill.
    case 128:
      return {128, 64, 4};
    // 128x64 with 8 warps: with 4 warps O alone would take 192 registers per thread; 96 KB smem.
    case 192:
      return {128, 64, 8};
    // 128x64 with 8 warps: 128 fp32 of O per thread; 128 KB smem (Q 64 KB, K and V 32 KB each).
    case 256:
      return {128, 64, 8};
    default:
      return {0, 0, 0};
  }
}

/// Whether a forward kernel exists for this head dim (D = Dv).
constexpr bool has_fwd_tile(int head_dim) { return fwd_tile(head_dim).block_m > 0; }

}  // namespace flashattn::cuda::sm80
