// flashattn — the CuTe types of the decode kernel for one (element type, head dim): a one-warp mma.sync
// (each warp multiplies the CTA's 16 query rows with its own 16 keys of a tile), swizzled shared-memory
// layouts, ldmatrix atoms, and the shared storage (the K/V ring, reused to merge the warps' states).
#pragma once

#include <type_traits>

#include <cutlass/numeric_types.h>
#include <cute/tensor.hpp>

#include "core/kvcache_plan.hpp"
#include "cuda/decode/tile_decode.hpp"

namespace flashattn::cuda::decode {

template <class Element, int kHeadDim>
struct DecodeLayouts {
  static_assert(std::is_same_v<Element, cutlass::half_t> || std::is_same_v<Element, cutlass::bfloat16_t>,
                "mma.sync m16n8k16 takes fp16 or bf16 operands");
  static constexpr DecodeTile kTile = decode_tile(kHeadDim);
  static_assert(kTile.stages >= 2, "no decode tile for this head dim");
  static constexpr int kBlockM = core::kDecodeRowsPerCta;
  static constexpr int kBlockN = core::kDecodeKeysPerTile;
  static constexpr int kWarps = 4;
  static constexpr int kWarpN = kBlockN / kWarps;  ///< Keys of a tile each warp owns.
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kStages = kTile.stages;
  static_assert(kBlockM == 16 && kWarpN == 16, "one m16 row tile, one 16-key (n16 / k16) slice per warp");
  static_assert(kHeadDim % 16 == 0, "m16n8k16 tiles the head dim in steps of 16");

  // ---- Tensor cores: one warp, M = 16 rows, N permuted to 16 so one ldmatrix.x4 feeds two n8 atoms.
  using MmaOp = std::conditional_t<std::is_same_v<Element, cutlass::half_t>,
                                   cute::SM80_16x8x16_F32F16F16F32_TN, cute::SM80_16x8x16_F32BF16BF16F32_TN>;
  using WarpMma =
      cute::TiledMMA<cute::MMA_Atom<MmaOp>, cute::Layout<cute::Shape<cute::_1, cute::_1, cute::_1>>,
                     cute::Tile<cute::_16, cute::_16, cute::_16>>;

  // ---- Shared memory: rows of 64 elements (128 B) where the head dim allows, else 32 (D = 96); the XOR
  // swizzle spreads the 8 rows one ldmatrix reads over all banks and keeps 16-byte chunks whole.
  static constexpr int kSmemRowChunk = kHeadDim % 64 == 0 ? 64 : 32;
  static constexpr int kSwizzleBits = kSmemRowChunk == 64 ? 3 : 2;
  using SmemLayoutAtom = decltype(cute::composition(
      cute::Swizzle<kSwizzleBits, 3, 3>{}, cute::Layout<cute::Shape<cute::_8, cute::Int<kSmemRowChunk>>,
                                                        cute::Stride<cute::Int<kSmemRowChunk>, cute::_1>>{}));
  using SmemLayoutQ = decltype(cute::tile_to_shape(
      SmemLayoutAtom{}, cute::Shape<cute::Int<kBlockM>, cute::Int<kHeadDim>>{}));  // (16, HEAD_DIM)
  /// One warp's 16 keys of a K or V tile, a separate aligned block per warp so no layout is sliced.
  using SmemLayoutKVWarp = decltype(cute::tile_to_shape(
      SmemLayoutAtom{}, cute::Shape<cute::Int<kWarpN>, cute::Int<kHeadDim>>{}));  // (16, HEAD_DIM)
  /// V as the B operand of P·V: the same bytes seen as (HEAD_DIM, 16).
  using SmemLayoutVtWarp = decltype(cute::composition(
      SmemLayoutKVWarp{},
      cute::make_layout(cute::Shape<cute::Int<kHeadDim>, cute::Int<kWarpN>>{}, cute::GenRowMajor{})));
  static constexpr int kWarpTileElements = kWarpN * kHeadDim;

  using SmemCopyAtom = cute::Copy_Atom<cute::SM75_U32x4_LDSM_N, Element>;
  using SmemCopyAtomTransposed = cute::Copy_Atom<cute::SM75_U16x8_LDSM_T, Element>;

  /// The warps' final states, padded by 4 floats a row so the quads' float2 writes of 8 rows spread over
  /// the banks.
  static constexpr int kMergeRowStride = kHeadDim + 4;

  union SharedStorage {
    struct {
      cute::array_aligned<Element, kBlockM * kHeadDim> q;
      cute::array_aligned<Element, kStages * kWarps * kWarpTileElements> k;  // [stage][warp](16, HEAD_DIM)
      cute::array_aligned<Element, kStages * kWarps * kWarpTileElements> v;
    } loop;
    struct {
      float o[kWarps][kBlockM][kMergeRowStride];  // each warp's normalised O
      float lse[kWarps][kBlockM];                 // each warp's lse (natural log)
      float merged_lse[kBlockM];
      float split_weight[kMaxClusterSplits][kBlockM];  // cluster combine: each split's weight per row
      float combined_lse[kBlockM];                     // cluster combine: the row's lse over the splits
    } merge;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(sizeof(SharedStorage::loop) == decode_smem_bytes(kHeadDim, kStages),
                "tile_decode.hpp's size model matches the storage");
  static_assert(kTile.ctas_per_sm * (kSmemBytes + 1024) <= 228 * 1024,
                "ctas_per_sm CTAs (plus the 1 KB reserved per CTA) fit an H100/H200 SM's shared memory");
  static_assert(kTile.ctas_per_sm == core::decode_ctas_per_sm(kHeadDim),
                "the split heuristic models the occupancy the launch bound asks for");
};

}  // namespace flashattn::cuda::decode
