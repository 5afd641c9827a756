// flashattn — the CuTe types of the portable backward kernel for one (element type, head dim): the three
// tiled mma.sync of the five products, the swizzled shared-memory layouts and their transposed views, the
// copy atoms (cp.async, ldmatrix, ldmatrix.trans) and the shared storage.
//
// Products (TN: both operands K-major as mma.sync wants; a transposed view + ldmatrix.trans reads an
// operand whose K mode is not the contiguous one):
//   S  = Q·Kᵀ,  dP = dO·Vᵀ    (BLOCK_M, BLOCK_N), K mode HEAD_DIM    TiledMmaSdP
//   dV += Pᵀ·dO, dK += dSᵀ·Q  (BLOCK_N, HEAD_DIM), K mode BLOCK_M    TiledMmadKV, both operands transposed
//   dQ  = dS·K                (BLOCK_M, HEAD_DIM), K mode BLOCK_N    TiledMmadQ, K transposed
#pragma once

#include <type_traits>

#include <cutlass/numeric_types.h>
#include <cute/tensor.hpp>

#include "cuda/sm80/gmem_copy_sm80.cuh"
#include "cuda/sm80/smem_atom_sm80.cuh"

#include "cuda/sm80/tile_bwd_sm80.hpp"

namespace flashattn::cuda::sm80 {

/// kHeadDim: the head dim of Q, K (dQ, dK); kHeadDimV: that of V, O, dO (dV).
template <class Element, int kHeadDim, int kHeadDimV>
struct BwdLayouts {
  static_assert(std::is_same_v<Element, cutlass::half_t> || std::is_same_v<Element, cutlass::bfloat16_t>,
                "mma.sync m16n8k16 takes fp16 or bf16 operands");
  static constexpr BwdTile kTile = bwd_tile(kHeadDim, kHeadDimV);
  static_assert(kTile.block_m > 0, "no backward tile configuration for this head dim");
  static constexpr int kBlockM = kTile.block_m;
  static constexpr int kBlockN = kTile.block_n;
  static constexpr int kWarps = kTile.warps;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kCtasPerSm = kTile.ctas_per_sm;

  // ---- Tensor cores: warps_m warps along a product's rows, the others along its columns; the column tile
  // is 16 per warp so one ldmatrix.x4 feeds two n8 atoms of B.
  using MmaOp = std::conditional_t<std::is_same_v<Element, cutlass::half_t>,
                                   cute::SM80_16x8x16_F32F16F16F32_TN, cute::SM80_16x8x16_F32BF16BF16F32_TN>;
  template <int kWarpsM>
  using TiledMmaOf =
      cute::TiledMMA<cute::MMA_Atom<MmaOp>,
                     cute::Layout<cute::Shape<cute::Int<kWarpsM>, cute::Int<kWarps / kWarpsM>, cute::_1>>,
                     cute::Tile<cute::Int<16 * kWarpsM>, cute::Int<16 * (kWarps / kWarpsM)>, cute::_16>>;
  using TiledMmaSdP = TiledMmaOf<kTile.warps_m_sdp>;
  using TiledMmadKV = TiledMmaOf<kTile.warps_n_dkv>;
  using TiledMmadQ = TiledMmaOf<kTile.warps_m_dq>;
  static_assert(kBlockM % (16 * kTile.warps_m_sdp) == 0 && kBlockN % (16 * (kWarps / kTile.warps_m_sdp)) == 0,
                "the S / dP tile divides (BLOCK_M, BLOCK_N)");
  static_assert(kBlockN % (16 * kTile.warps_n_dkv) == 0 &&
                    kHeadDim % (16 * (kWarps / kTile.warps_n_dkv)) == 0 &&
                    kHeadDimV % (16 * (kWarps / kTile.warps_n_dkv)) == 0,
                "the dK / dV tile divides (BLOCK_N, HEAD_DIM) and (BLOCK_N, HEAD_DIM_V)");
  static_assert(kBlockM % (16 * kTile.warps_m_sdp) == 0 && kHeadDimV % 16 == 0,
                "dP = dO·Vᵀ takes whole 16-wide k-slices of HEAD_DIM_V");
  static_assert(kBlockM % (16 * kTile.warps_m_dq) == 0 && kHeadDim % (16 * (kWarps / kTile.warps_m_dq)) == 0,
                "the dQ tile divides (BLOCK_M, HEAD_DIM)");

  // ---- Shared memory: swizzled rows (smem_atom_sm80.cuh); Q and K rows have D elements, dO and V rows Dv.
  static constexpr int kSmemRowChunk = kSmemRowChunkSm80<kHeadDim>;
  static constexpr int kSmemRowChunkV = kSmemRowChunkSm80<kHeadDimV>;
  static_assert(kBlockN % 64 == 0, "P and dS rows are whole 64-element swizzle chunks");
  using SmemLayoutQ = SmemTileSm80<kBlockM, kHeadDim>;    // (BLOCK_M, HEAD_DIM)
  using SmemLayoutdO = SmemTileSm80<kBlockM, kHeadDimV>;  // (BLOCK_M, HEAD_DIM_V)
  using SmemLayoutK = SmemTileSm80<kBlockN, kHeadDim>;    // (BLOCK_N, HEAD_DIM)
  using SmemLayoutV = SmemTileSm80<kBlockN, kHeadDimV>;   // (BLOCK_N, HEAD_DIM_V)
  using SmemLayoutPdS = SmemTileSm80<kBlockM, kBlockN>;   // (BLOCK_M, BLOCK_N)
  // The same bytes seen transposed, as the operands whose K mode is the stored rows.
  template <class Layout, int kRows, int kCols>
  using TransposedOf = decltype(cute::composition(
      Layout{}, cute::make_layout(cute::Shape<cute::Int<kCols>, cute::Int<kRows>>{}, cute::GenRowMajor{})));
  using SmemLayoutQt = TransposedOf<SmemLayoutQ, kBlockM, kHeadDim>;     // (HEAD_DIM, BLOCK_M): Qᵀ
  using SmemLayoutdOt = TransposedOf<SmemLayoutdO, kBlockM, kHeadDimV>;  // (HEAD_DIM_V, BLOCK_M): dOᵀ
  using SmemLayoutKt = TransposedOf<SmemLayoutK, kBlockN, kHeadDim>;     // (HEAD_DIM, BLOCK_N): Kᵀ
  using SmemLayoutPdSt = TransposedOf<SmemLayoutPdS, kBlockM, kBlockN>;  // (BLOCK_N, BLOCK_M): Pᵀ, dSᵀ

  // ---- Shared memory -> registers: ldmatrix, transposing for the transposed views.
  using SmemCopyAtom = cute::Copy_Atom<cute::SM75_U32x4_LDSM_N, Element>;
  using SmemCopyAtomTransposed = cute::Copy_Atom<cute::SM75_U16x8_LDSM_T, Element>;
  // Registers -> shared memory for P, dS, dK and dV: a thread's accumulator pairs are 32-bit stores.
  using SmemCopyAtomC = cute::Copy_Atom<cute::AutoVectorizingCopyWithAssumedAlignment<128>, Element>;

  // ---- Global <-> shared: 16 bytes (8 elements) per thread and copy, a row chunk per group of threads.
  // cp.async.cg bypasses L1: every tile is read once per CTA.
  using GmemCopies = GmemCopiesSm80<Element, kThreads, kSmemRowChunk>;
  using GmemCopiesV = GmemCopiesSm80<Element, kThreads, kSmemRowChunkV>;
  using GmemTiledCopyLoad = typename GmemCopies::TiledLoad;      // Q, K
  using GmemTiledCopyLoadV = typename GmemCopiesV::TiledLoad;    // dO, V (the same copy when Dv = D)
  using GmemTiledCopyStore = typename GmemCopies::TiledStore;    // dK
  using GmemTiledCopyStoreV = typename GmemCopiesV::TiledStore;  // dV
  static_assert(kBlockM % GmemCopies::kRowsPerPass == 0 && kBlockN % GmemCopies::kRowsPerPass == 0 &&
                    kBlockM % GmemCopiesV::kRowsPerPass == 0 && kBlockN % GmemCopiesV::kRowsPerPass == 0,
                "a tile is a whole number of copy passes");

  struct SharedStorage {
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>> q;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutdO>> dout;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutK>> k;  // K, then dK in the epilogue
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutV>> v;  // V, then dV in the epilogue
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutPdS>> p;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutPdS>> ds;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one CTA is at most 227 KB (sm90)");
};

}  // namespace flashattn::cuda::sm80
