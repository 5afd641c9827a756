// flashattn — the CuTe types of the portable forward kernel for one (element type, head dim): the tiled
// mma.sync, the swizzled shared-memory layouts, the copy atoms (cp.async, ldmatrix) and the shared storage.
#pragma once

#include <type_traits>

#include <cutlass/numeric_types.h>
#include <cute/tensor.hpp>

#include "cuda/sm80/gmem_copy_sm80.cuh"
#include "cuda/sm80/smem_atom_sm80.cuh"

#include "cuda/sm80/tile_fwd_sm80.hpp"

namespace flashattn::cuda::sm80 {

/// kHeadDim: the head dim of Q and K; kHeadDimV: that of V and O, at most kHeadDim (O is staged in Q's
/// buffer).
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
struct FwdLayouts {
  static_assert(std::is_same_v<Element, cutlass::half_t> || std::is_same_v<Element, cutlass::bfloat16_t>,
                "mma.sync m16n8k16 takes fp16 or bf16 operands");
  static constexpr FwdTile kTile = fwd_tile(kHeadDim, kHeadDimV, kRegime);
  static_assert(kTile.block_m > 0, "no tile configuration for this head dim and regime");
  static constexpr int kBlockM = kTile.block_m;
  static constexpr int kBlockN = kTile.block_n;
  static constexpr int kWarps = kTile.warps;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kCtasPerSm = kTile.ctas_per_sm;
  static_assert(kBlockM % (16 * kWarps) == 0, "each warp owns whole 16-row MMA tiles of the query block");
  static_assert(kBlockN % 16 == 0 && kHeadDim % 16 == 0 && kHeadDimV % 16 == 0,
                "m16n8k16 (with 16-wide N permutation) tiles");
  static_assert(kHeadDimV <= kHeadDim, "O is staged in Q's buffer");

  // ---- Tensor cores: warps split the query rows; no warp shares a row, so no cross-warp reduction.
  using MmaOp = std::conditional_t<std::is_same_v<Element, cutlass::half_t>,
                                   cute::SM80_16x8x16_F32F16F16F32_TN, cute::SM80_16x8x16_F32BF16BF16F32_TN>;
  // N permuted to 16 so one ldmatrix.x4 feeds two n8 atoms of B.
  using TiledMma =
      cute::TiledMMA<cute::MMA_Atom<MmaOp>, cute::Layout<cute::Shape<cute::Int<kWarps>, cute::_1, cute::_1>>,
                     cute::Tile<cute::Int<16 * kWarps>, cute::_16, cute::_16>>;

  // ---- Shared memory: swizzled rows (smem_atom_sm80.cuh); Q and K rows have D elements, V and O rows Dv.
  static constexpr int kSmemRowChunk = kSmemRowChunkSm80<kHeadDim>;
  static constexpr int kSmemRowChunkV = kSmemRowChunkSm80<kHeadDimV>;
  using SmemLayoutQ = SmemTileSm80<kBlockM, kHeadDim>;   // (BLOCK_M, HEAD_DIM)
  using SmemLayoutK = SmemTileSm80<kBlockN, kHeadDim>;   // (BLOCK_N, HEAD_DIM)
  using SmemLayoutV = SmemTileSm80<kBlockN, kHeadDimV>;  // (BLOCK_N, HEAD_DIM_V)
  // V as the B operand of P·V: the same bytes seen as (HEAD_DIM_V, BLOCK_N).
  using SmemLayoutVt = decltype(cute::composition(
      SmemLayoutV{},
      cute::make_layout(cute::Shape<cute::Int<kHeadDimV>, cute::Int<kBlockN>>{}, cute::GenRowMajor{})));
  // O is staged through Q's buffer in the epilogue (the same layout when Dv = D).
  using SmemLayoutO = SmemTileSm80<kBlockM, kHeadDimV>;  // (BLOCK_M, HEAD_DIM_V)

  // ---- Shared memory -> registers: ldmatrix (transposing for V, which is K-major in memory).
  using SmemCopyAtom = cute::Copy_Atom<cute::SM75_U32x4_LDSM_N, Element>;
  using SmemCopyAtomTransposed = cute::Copy_Atom<cute::SM75_U16x8_LDSM_T, Element>;
  // Registers -> shared memory for O: a thread's accumulator pairs are 32-bit stores.
  using SmemCopyAtomO = cute::Copy_Atom<cute::AutoVectorizingCopyWithAssumedAlignment<128>, Element>;

  // ---- Global <-> shared: 16 bytes (8 elements) per thread and copy, a row chunk per group of threads,
  // so a warp reads whole 128-byte lines. cp.async.cg bypasses L1 (K and V are reused through L2 only).
  using GmemCopies = GmemCopiesSm80<Element, kThreads, kSmemRowChunk>;
  using GmemCopiesV = GmemCopiesSm80<Element, kThreads, kSmemRowChunkV>;
  using GmemTiledCopyQK = typename GmemCopies::TiledLoad;
  using GmemTiledCopyV = typename GmemCopiesV::TiledLoad;
  using GmemTiledCopyO = typename GmemCopiesV::TiledStore;
  static_assert(kBlockM % GmemCopies::kRowsPerPass == 0 && kBlockN % GmemCopies::kRowsPerPass == 0 &&
                    kBlockM % GmemCopiesV::kRowsPerPass == 0 && kBlockN % GmemCopiesV::kRowsPerPass == 0,
                "a tile is a whole number of copy passes");

  struct SharedStorage {
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>> q;  // Q, then O in the epilogue
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutK>> k;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutV>> v;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kCtasPerSm * kSmemBytes <= 228 * 1024, "ctas_per_sm CTAs must fit one SM's shared memory");
};

}  // namespace flashattn::cuda::sm80
