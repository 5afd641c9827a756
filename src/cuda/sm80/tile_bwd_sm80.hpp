// flashattn — compile-time tile configuration of the portable (sm80) backward kernel, one per head dim.
//
// One CTA owns BLOCK_N keys of one (batch, kv head) and walks BLOCK_M query rows at a time. dK and dV
// (BLOCK_N x HEAD_DIM and BLOCK_N x HEAD_DIM_V fp32) stay in registers for the whole CTA: BLOCK_N * (HEAD_DIM
// + HEAD_DIM_V) / threads values per thread, which is what bounds the tile. Shared memory holds Q (BLOCK_M,
// HEAD_DIM), dO (BLOCK_M, HEAD_DIM_V), K (BLOCK_N, HEAD_DIM), V (BLOCK_N, HEAD_DIM_V), P and dS (BLOCK_M,
// BLOCK_N), one buffer each. The numbers aim at 255
// registers per thread and at most 227 KB of shared memory per CTA (H100/H200; A100 allows 163 KB).
#pragma once

namespace flashattn::cuda::sm80 {

/// How one CTA tiles the backward. The three warp splits say how the 8 warps share the rows (the M mode
/// of the MMA) of each product; the rest of the warps split its columns.
struct BwdTile {
  int block_m;      ///< Query rows per main-loop step.
  int block_n;      ///< Keys per CTA (the rows of dK and dV).
  int warps;        ///< Warps per CTA.
  int warps_m_sdp;  ///< Warps along BLOCK_M of S = Q·Kᵀ and dP = dO·Vᵀ, (BLOCK_M, BLOCK_N).
  int warps_n_dkv;  ///< Warps along BLOCK_N of dV += Pᵀ·dO and dK += dSᵀ·Q, (BLOCK_N, HEAD_DIM).
  int warps_m_dq;   ///< Warps along BLOCK_M of dQ = dS·K, (BLOCK_M, HEAD_DIM).
  int ctas_per_sm;  ///< The launch bound: CTAs the registers let one SM hold.
};

/// The tile of head dims (`head_dim`, `head_dim_v`) (0 fields for head dims with no kernel). Every
/// product's tile of 16 * warps_m rows by 16 * (warps / warps_m) columns must divide its shape.
constexpr BwdTile bwd_tile(int head_dim, int head_dim_v) {
  // D = 192 with Dv = 128: D = 192's 64x64 tile, 8 warps: dK + dV take 80 fp32 per thread; Q 24 KB + dO 16 KB
  // + K 24 KB + V 16 KB + P, dS 8 KB each = 96 KB. Not yet measured.
  if (head_dim_v != head_dim) {
    return head_dim == 192 && head_dim_v == 128 ? BwdTile{64, 64, 8, 4, 2, 2, 1}
                                                : BwdTile{0, 0, 0, 0, 0, 0, 0};
  }
  switch (head_dim) {
    // 64x128 (FlashAttention-2's sm80 choice at D <= 128): dK + dV take 64 fp32 per thread; 80 KB smem.
    case 64:
      return {64, 128, 8, 2, 4, 2, 1};
    // 64x128: dK + dV take 96 fp32 per thread. 96 columns split in 32s, so the dQ product puts 4 warps
    // along its rows (64x32 tiles). 104 KB smem.
    case 96:
      return {64, 128, 8, 2, 4, 4, 1};
    // 64x128: dK + dV take 128 fp32 per thread, S and dP 32 each; 128 KB smem. A 128-row query step
    // would double S and dP and spill.
    case 128:
      return {64, 128, 8, 2, 4, 2, 1};
    // 64x64: with 128 keys dK + dV alone would take 192 fp32 per thread. 112 KB smem.
    case 192:
      return {64, 64, 8, 4, 2, 2, 1};
    // 64x64: dK + dV take 128 fp32 per thread, dQ 64; 144 KB smem (Q, dO, K, V 32 KB each).
    case 256:
      return {64, 64, 8, 4, 2, 2, 1};
    default:
      return {0, 0, 0, 0, 0, 0, 0};
  }
}

}  // namespace flashattn::cuda::sm80
