// flashattn — compile-time layouts of the Hopper backward kernel: the wgmma tiled MMAs of the five
// products, the swizzled shared-memory layouts TMA writes and wgmma reads (with their transposed views),
// the TMA copy types and the shared storage of one CTA. BwdLayoutsSm90Common holds what both ways of
// sharing the work between the consumer warpgroups (tile_bwd_sm90.hpp) use; BwdLayoutsSm90 adds the
// products of one way: here the keys split (D <= 128), in layouts_bwd_sm90_split_head_dim.cuh the head dim.
//
// Products, keys split (consumer warpgroup w owns keys [64 w, 64 w + 64) of the CTA's BLOCK_N):
//   Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ     (BLOCK_N, BLOCK_M), K mode HEAD_DIM   SS: K / V and Q / dO, all K-major
//   dV += Pᵀ·dO, dK += dSᵀ·Q   (BLOCK_N, HEAD_DIM), K mode BLOCK_M   RS: Pᵀ / dSᵀ from the registers of
//                                                                     Sᵀ / dPᵀ; dO / Q MN-major views
//   dQ  = dS·K                 (BLOCK_M, HEAD_DIM), K mode BLOCK_N   SS: dS (shared, MN-major) and K
//                                                                     (MN-major view); warpgroup w owns
//                                                                     head-dim columns [w D/2, (w+1) D/2),
//                                                                     or (dq_by_rows) every column of
//                                                                     query rows [64 w, 64 w + 64)
//   or dQᵀ = Kᵀ·dSᵀ            (HEAD_DIM, BLOCK_M), K mode BLOCK_N   SS: K (MN-major view) and dS (shared,
//                                                                     keys contiguous: K-major); warpgroup
//                                                                     w owns head-dim rows [w D/2, (w+1)
//                                                                     D/2) (dq_transposed)
// dQ leaves through shared memory (fp32, 128-byte swizzled) and a TMA reduce-add into the accumulator.
// A transposed view is the same bytes read with the other major-ness: a K-major swizzle atom of 8 rows
// of W elements is the MN-major atom of W x 8, so no product ever moves data to transpose it.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cutlass/arch/barrier.h>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/sm90/primitives_sm90.cuh"
#include "cuda/sm90/tile_bwd_sm90.hpp"
#include "cuda/sm90/wgmma_shapes.hpp"
#include "cuda/sm90/work_ring_sm90.cuh"

namespace flashattn::cuda::sm90 {

/// What both ways of splitting the work use: Q (and dO) (BLOCK_M, HEAD_DIM) in a ring of kStages, K and V
/// (BLOCK_N, HEAD_DIM), the fp32 dQ staging buffer of the TMA reduce-add (one (kDqRows, kDqCols) block per
/// warpgroup: its half of the head-dim columns, or one slice of that half at a time, or with kDqByRows
/// every column of its 64 query rows), and the TMA copy types.
template <class Element, int kHeadDim_, int kBlockM_, int kBlockN_, int kStages_, int kDqCols_,
          bool kDqByRows_ = false>
struct BwdLayoutsSm90Common {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kStages = kStages_;
  static constexpr int kConsumerWarpGroups = 2;
  static constexpr int kConsumerThreads = 128 * kConsumerWarpGroups;
  static constexpr int kThreads = kConsumerThreads + 128;  // + the producer warpgroup
  /// Head-dim columns per consumer warpgroup where they split the head dim.
  static constexpr int kHeadDimPerWarpGroup = kHeadDim / kConsumerWarpGroups;
  /// BwdTileSm90::dq_by_rows: each warpgroup computes dQ for its 64 of the step's query rows.
  static constexpr bool kDqByRows = kDqByRows_;
  /// Head-dim columns of the dQ a consumer warpgroup computes: its half, or all of them (of its own rows).
  static constexpr int kDqWidth = kDqByRows ? kHeadDim : kHeadDimPerWarpGroup;
  /// Query rows of a warpgroup's dQ block: the step's, or its own 64 (kDqByRows).
  static constexpr int kDqRows = kDqByRows ? 64 : kBlockM;
  /// Columns of one staged dQ block, and the blocks a warpgroup stages per step.
  static constexpr int kDqCols = kDqCols_;
  static constexpr int kDqSlices = kDqWidth / kDqCols;
  static_assert(kDqWidth % kDqCols == 0, "whole dQ slices per warpgroup");
  /// kDqCols-column blocks of dQ from warpgroup w's first to w + 1's: the next half of the head dim, or
  /// none when each adds into every column of its own rows.
  static constexpr int kDqWarpGroupBlockStride = kDqByRows ? 0 : kDqSlices;
  /// kDqRows-row blocks of dQ from warpgroup w's first to w + 1's: the next 64 rows (kDqByRows), or none.
  static constexpr int kDqWarpGroupRowStride = kDqByRows ? 1 : 0;
  static_assert(!kDqByRows || kBlockM == 64 * kConsumerWarpGroups,
                "dQ by rows: 64 of the step's rows per warpgroup, over all the CTA's keys");
  static_assert(kHeadDim % 64 == 0 && kHeadDim <= 256,
                "head dim: whole 128-byte rows of Q and dO, and halves of at least 32 columns (one 64-byte "
                "MN-major atom of Kᵀ per warpgroup in dQ)");

  // ---- Shared memory. Q and dO: 128-byte swizzled rows, a ring of kStages. K and V: the swizzle whose
  // MN-major reading (Kᵀ in dQ) is as wide as one warpgroup's dQ (64 or 32 columns).
  using SmemLayoutQ = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<Element>{},
      cute::Shape<cute::Int<kBlockM>, cute::Int<kHeadDim>, cute::Int<kStages>>{}));  // (M, D, PIPE)
  using SmemAtomK = std::conditional_t<kDqWidth % 64 == 0, cute::GMMA::Layout_K_SW128_Atom<Element>,
                                       cute::GMMA::Layout_K_SW64_Atom<Element>>;
  using SmemLayoutK = decltype(cute::tile_to_shape(
      SmemAtomK{}, cute::Shape<cute::Int<kBlockN>, cute::Int<kHeadDim>>{}));  // (N, D), also V

  // Transposed views: (d, m, stage) -> Q(m, d, stage) and (d, n) -> K(n, d).
  using SmemLayoutQt = decltype(cute::composition(
      SmemLayoutQ{},
      cute::make_layout(
          cute::Shape<cute::Int<kHeadDim>, cute::Int<kBlockM>, cute::Int<kStages>>{},
          cute::Stride<cute::Int<kBlockM>, cute::_1, cute::Int<kBlockM * kHeadDim>>{})));  // (D, M, PIPE)
  using SmemLayoutKt = decltype(cute::composition(
      SmemLayoutK{}, cute::make_layout(cute::Shape<cute::Int<kHeadDim>, cute::Int<kBlockN>>{},
                                       cute::Stride<cute::Int<kBlockN>, cute::_1>{})));  // (D, N)

  // dQ (kDqRows, kDqCols per warpgroup) fp32, staged for the TMA reduce-add: 128-byte swizzled rows of 32
  // floats, over whose banks a warp's 8-byte stores of accumulator pairs spread (conflict-free with the
  // lane exchange of dq_staging_sm90.cuh; 8-way conflicts unswizzled). The atoms tile the rows first, so
  // warpgroup w's block is one contiguous (kDqRows, kDqCols) block laid out as SmemLayoutdQWarpGroup: one
  // TMA box sequence of its own.
  using SmemLayoutdQ = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<float>{},
      cute::Shape<cute::Int<kDqRows>, cute::Int<kDqCols * kConsumerWarpGroups>>{}));
  using SmemLayoutdQWarpGroup = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<float>{}, cute::Shape<cute::Int<kDqRows>, cute::Int<kDqCols>>{}));
  static_assert(kDqCols % 32 == 0, "whole 128-byte rows of fp32 per warpgroup block of dQ");
  static_assert(cute::cosize_v<SmemLayoutdQ> == kConsumerWarpGroups * cute::cosize_v<SmemLayoutdQWarpGroup>);

  // ---- TMA: q, dout, k, v as (rows, head dim, heads, batch); varlen inputs are one batch of total rows,
  // each sequence a row offset. Rows past the extent read as zero.
  using GmemShape = cute::Shape<std::int32_t, std::int32_t, std::int32_t, std::int32_t>;
  using GmemStride = cute::Stride<std::int64_t, cute::_1, std::int64_t, std::int64_t>;
  using GmemTensor = decltype(cute::make_tensor(cute::make_gmem_ptr(static_cast<const Element*>(nullptr)),
                                                GmemShape{}, GmemStride{}));
  using TmaQ = decltype(cute::make_tma_copy(cute::SM90_TMA_LOAD{}, GmemTensor{},
                                            cute::take<0, 2>(SmemLayoutQ{})));                     // Q and dO
  using TmaK = decltype(cute::make_tma_copy(cute::SM90_TMA_LOAD{}, GmemTensor{}, SmemLayoutK{}));  // K, V
  // The fp32 dQ accumulator of the workspace as (tokens, head dim, heads): a warpgroup's box is
  // (kDqRows, kDqCols) of one head. Rows past the tokens' extent are clipped.
  using GmemShapedQ = cute::Shape<std::int32_t, std::int32_t, std::int32_t>;
  using GmemTensordQ =
      decltype(cute::make_tensor(cute::make_gmem_ptr(static_cast<float*>(nullptr)), GmemShapedQ{},
                                 cute::Stride<std::int64_t, cute::_1, std::int64_t>{}));
  using TmadQ =
      decltype(cute::make_tma_copy(cute::SM90_TMA_REDUCE_ADD{}, GmemTensordQ{}, SmemLayoutdQWarpGroup{}));
  // A TMA box always delivers its full byte count (out-of-bounds rows arrive as zeros).
  static constexpr std::uint32_t kTmaBytesQ = kBlockM * kHeadDim * sizeof(Element);
  static constexpr std::uint32_t kTmaBytesK = kBlockN * kHeadDim * sizeof(Element);

  using PipelineQdO = cutlass::PipelineTmaAsync<kStages>;
};

/// The ring through which the producer hands each tile's index (-1: no more) to the consumer threads and
/// the dQ writer warp.
template <int kConsumerThreads>
using BwdTileRing = WorkRingSm90<int, kConsumerThreads + 32>;

/// The dO pipeline of a tile whose Q and dO share the ring's stages: there is none.
struct NoPipeline {
  using PipelineState = int;  ///< Unused.
};

/// The layouts of head dim kHeadDim's tile; its split_head_dim picks the specialisation.
template <class Element, int kHeadDim, bool kSplitHeadDim = bwd_tile_sm90(kHeadDim).split_head_dim>
struct BwdLayoutsSm90;

/// The keys split between the consumer warpgroups (D <= 128).
template <class Element, int kHeadDim>
struct BwdLayoutsSm90<Element, kHeadDim, false>
    : BwdLayoutsSm90Common<Element, kHeadDim, bwd_tile_sm90(kHeadDim).block_m,
                           bwd_tile_sm90(kHeadDim).block_n, bwd_tile_sm90(kHeadDim).stages,
                           bwd_tile_sm90(kHeadDim).dq_by_rows ? kHeadDim : kHeadDim / 2,
                           bwd_tile_sm90(kHeadDim).dq_by_rows> {
  using Common = BwdLayoutsSm90Common<Element, kHeadDim, bwd_tile_sm90(kHeadDim).block_m,
                                      bwd_tile_sm90(kHeadDim).block_n, bwd_tile_sm90(kHeadDim).stages,
                                      bwd_tile_sm90(kHeadDim).dq_by_rows ? kHeadDim : kHeadDim / 2,
                                      bwd_tile_sm90(kHeadDim).dq_by_rows>;
  static constexpr bool kSplitHeadDim = false;
  /// Q and dO share the ring's stages (one pipeline, both tiles' bytes per stage).
  static constexpr std::uint32_t kTmaBytesPerStage = 2 * Common::kTmaBytesQ;
  using PipelinedO = NoPipeline;
  using SmemLayoutdO = typename Common::SmemLayoutQ;
  using SmemLayoutdOt = typename Common::SmemLayoutQt;
  static constexpr int kBlockM = Common::kBlockM;
  static constexpr int kBlockN = Common::kBlockN;
  static constexpr int kConsumerWarpGroups = Common::kConsumerWarpGroups;
  static constexpr int kDqWidth = Common::kDqWidth;
  /// BwdTileSm90::dq_transposed: dQᵀ = Kᵀ·dSᵀ, dS stored keys-contiguous.
  static constexpr bool kDqTransposed = bwd_tile_sm90(kHeadDim).dq_transposed;
  static_assert(kBlockM > 0, "no sm90 backward tile configuration for this head dim");
  static_assert(!kDqTransposed || !Common::kDqByRows, "dQᵀ by head-dim halves only");
  static_assert(kBlockN == 64 * kConsumerWarpGroups, "each consumer warpgroup owns 64 keys");
  static_assert(
      cute_wgmma_n_is_one_instruction(kBlockM) && cute_wgmma_n_is_one_instruction(kHeadDim) &&
          cute_wgmma_n_is_one_instruction(kDqWidth),
      "a GEMM width CuTe's selectors issue as narrow pieces (cuda/sm90/wgmma_shapes.hpp)");
  static_assert(kBlockM <= 256 && kBlockM % (kDqTransposed ? 16 : 64) == 0,
                "BLOCK_M: the N of Sᵀ (<= 256), the K of dV and dK (k-steps of 16) and, unless dQ is "
                "transposed, the width of dS's 64-row MN-major swizzle atom");

  // ---- Tensor cores.
  // The warpgroups split the M mode (the keys of Sᵀ, dPᵀ, dV and dK; the query rows of dQ by rows), or the
  // N mode (the head dim of dQ by head-dim halves).
  using AtomLayoutKeys = cute::Layout<cute::Shape<cute::Int<kConsumerWarpGroups>, cute::_1, cute::_1>>;
  using AtomLayoutHeadDim = cute::Layout<cute::Shape<cute::_1, cute::Int<kConsumerWarpGroups>, cute::_1>>;
  using ShapeSdP = cute::Shape<cute::_64, cute::Int<kBlockM>, cute::Int<kHeadDim>>;
  using TiledMmaS = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<Element, Element, float, ShapeSdP>(), AtomLayoutKeys{}));
  using TiledMmadP = TiledMmaS;
  using TiledMmadKV = decltype(cute::make_tiled_mma(
      cute::GMMA::rs_op_selector<Element, Element, float,
                                 cute::Shape<cute::_64, cute::Int<kHeadDim>, cute::Int<kBlockM>>,
                                 cute::GMMA::Major::K, cute::GMMA::Major::MN>(),
      AtomLayoutKeys{}));
  // dQ of the CTA's keys split by head-dim halves between the warpgroups, or (dq_by_rows) by query rows:
  // every column of the warpgroup's 64 rows.
  // dq_transposed: dQᵀ, the head dim split between the warpgroups (M), every query row (N).
  using TiledMmadQt = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<Element, Element, float,
                                 cute::Shape<cute::_64, cute::Int<kBlockM>, cute::Int<kBlockN>>,
                                 cute::GMMA::Major::MN, cute::GMMA::Major::K>(),
      AtomLayoutKeys{}));
  using TiledMmadQ = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<Element, Element, float,
                                 cute::Shape<cute::_64, cute::Int<kDqWidth>, cute::Int<kBlockN>>,
                                 cute::GMMA::Major::MN, cute::GMMA::Major::MN>(),
      std::conditional_t<Common::kDqByRows, AtomLayoutKeys, AtomLayoutHeadDim>{}));

  // dS (BLOCK_M, BLOCK_N), query rows contiguous (dQ's MN-major A operand): written from dSᵀ registers,
  // whose pairs of adjacent columns are adjacent query rows; or keys contiguous (dQᵀ's K-major B operand,
  // kDqTransposed). Double-buffered (see the mainloop).
  using SmemLayoutdS = decltype(cute::tile_to_shape(
      std::conditional_t<kDqTransposed, cute::GMMA::Layout_K_SW128_Atom<Element>,
                         cute::GMMA::Layout_MN_SW128_Atom<Element>>{},
      cute::Shape<cute::Int<kBlockM>, cute::Int<kBlockN>, cute::_2>{}));  // (M, N, 2)
  using SmemLayoutdSt = decltype(cute::composition(
      SmemLayoutdS{},
      cute::make_layout(
          cute::Shape<cute::Int<kBlockN>, cute::Int<kBlockM>, cute::_2>{},
          cute::Stride<cute::Int<kBlockM>, cute::_1, cute::Int<kBlockM * kBlockN>>{})));  // (N, M, 2)

  /// The epilogue stages dK and dV in the dS buffer when it holds both (D 64), else in the K and V buffers:
  /// then the producer can load the next tile's K and V while the epilogue runs (persistent CTAs).
  static constexpr bool kEpilogueInDs =
      cute::cosize_v<SmemLayoutdS> >= 2 * cute::cosize_v<typename Common::SmemLayoutK>;

  // Registers -> shared memory for dSᵀ: eight query rows of one key are 16 contiguous bytes of dS, one row
  // of an 8x8 stmatrix tile; with dS keys-contiguous, eight keys of one query row, the transposed stmatrix.
  using SmemCopyAtomdS =
      cute::Copy_Atom<std::conditional_t<kDqTransposed, cute::SM90_U16x8_STSM_T, cute::SM90_U32x4_STSM_N>,
                      Element>;

  // 1024-byte alignment: a 128-byte swizzle pattern repeats every 8 rows of 128 bytes, and TMA and wgmma
  // compute it from address bits.
  struct SharedStorage {
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutQ>> q;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutQ>> dout;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutK>> k;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutK>> v;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutdS>> ds;
    alignas(1024) cute::array_aligned<float, cute::cosize_v<typename Common::SmemLayoutdQ>> dq;
    /// lse * log2(e) of the query rows of a step, double-buffered (by step parity).
    float lse_log2[2][kBlockM];
    float dsum[2][kBlockM];                                    ///< D = rowsum(dO ∘ O) of the same rows.
    typename Common::PipelineQdO::SharedStorage pipeline_qdo;  ///< Q and dO of a step landed / were read.
    cutlass::arch::ClusterTransactionBarrier kv_full;          ///< K and V landed (TMA transaction bytes).
    /// K and V (also the epilogue's staging of dK and dV) no longer read by any consumer: the producer may
    /// load the next tile's (persistent CTAs, BwdParamsSm90::tiles).
    cutlass::arch::ClusterBarrier kv_empty;
    /// The CTA's tiles, from the producer to the consumers and the dQ writer (BwdTileRing).
    typename BwdTileRing<Common::kConsumerThreads>::SharedStorage tile_ring;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one CTA is at most 227 KB (sm90)");
};

}  // namespace flashattn::cuda::sm90

#include "cuda/sm90/layouts_bwd_sm90_split_head_dim.cuh"
