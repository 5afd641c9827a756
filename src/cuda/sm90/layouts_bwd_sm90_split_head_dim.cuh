// flashattn — compile-time layouts of the Hopper backward kernel when the consumer warpgroups split the head
// dim (D = 256; tile_bwd_sm90.hpp says why). The CTA owns BLOCK_N = 64 keys and walks BLOCK_M = 64 query
// rows a step. Products (w = the consumer warpgroup, r_w its query rows [32 w, 32 w + 32) of the step,
// h_w its head-dim columns [w D/2, (w+1) D/2)):
//   Sᵀ[:, r_w] = K·Q[r_w]ᵀ, dPᵀ[:, r_w] = V·dO[r_w]ᵀ     (BLOCK_N, BLOCK_M / 2) each, K mode HEAD_DIM, SS
//   dV[:, h_w] += Pᵀ·dO[:, h_w], dK[:, h_w] += dSᵀ·Q[:, h_w]   (BLOCK_N, D/2), K mode BLOCK_M, SS: Pᵀ / dSᵀ
//                                                       from shared memory, K-major; dO / Q MN-major views
//   dQ[:, h_w] = dS·K[:, h_w]                            (BLOCK_M, D/2), K mode BLOCK_N, SS: dS (the (query,
//                                                       key) view of dSᵀ, MN-major) and K (MN-major view)
// Pᵀ and dSᵀ are stored (key, query row) with the query rows contiguous: a 64-row block is a 128-byte row,
// so their swizzle is the 128-byte one, and read transposed that is the MN-major 128-byte atom dQ wants.
// Each warpgroup writes its rows of both; dV, dK and dQ read all 64 rows, after an all-consumer barrier.
// dQ leaves as with the keys split (staged, then the dQ writer's TMA reduce-add), in two 64-column slices
// of each warpgroup's half: there is room for one slice per warpgroup, with Q in two stages and dO in one.
// (Added by the consumers' own 8- or 16-byte reductions instead, it kept L2 82% busy against 61% for the
// same bytes by TMA, and the kernel ran 0.87-0.96x the 32-row version: docs/PERF.md.)
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/sm90/layouts_bwd_sm90.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
struct BwdLayoutsSm90<Element, kHeadDim, true>
    : BwdLayoutsSm90Common<Element, kHeadDim, bwd_tile_sm90(kHeadDim).block_m,
                           bwd_tile_sm90(kHeadDim).block_n, bwd_tile_sm90(kHeadDim).stages, 64> {
  using Common = BwdLayoutsSm90Common<Element, kHeadDim, bwd_tile_sm90(kHeadDim).block_m,
                                      bwd_tile_sm90(kHeadDim).block_n, bwd_tile_sm90(kHeadDim).stages, 64>;
  static constexpr bool kSplitHeadDim = true;
  /// Q has the ring's stages to itself; dO has one stage and a pipeline of its own (PipelinedO), released
  /// once dV has read it, mid-step, so the next step's dO loads under the rest of the step.
  static constexpr std::uint32_t kTmaBytesPerStage = Common::kTmaBytesQ;
  using PipelinedO = cutlass::PipelineTmaAsync<1>;
  using SmemLayoutdO = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<Element>{},
      cute::Shape<cute::Int<Common::kBlockM>, cute::Int<kHeadDim>, cute::_1>{}));  // (M, D, 1)
  using SmemLayoutdOt = decltype(cute::composition(
      SmemLayoutdO{},
      cute::make_layout(cute::Shape<cute::Int<kHeadDim>, cute::Int<Common::kBlockM>, cute::_1>{},
                        cute::Stride<cute::Int<Common::kBlockM>, cute::_1,
                                     cute::Int<Common::kBlockM * kHeadDim>>{})));  // (D, M, 1)
  static constexpr int kBlockM = Common::kBlockM;
  static constexpr int kBlockN = Common::kBlockN;
  static constexpr int kConsumerWarpGroups = Common::kConsumerWarpGroups;
  static constexpr int kHeadDimPerWarpGroup = Common::kHeadDimPerWarpGroup;
  static_assert(kBlockN == 64, "Sᵀ and dPᵀ: the CTA's keys are one wgmma M of 64");
  static_assert(kBlockM == 64, "Pᵀ and dSᵀ rows are one 128-byte swizzle atom wide");
  static_assert(kHeadDimPerWarpGroup % 64 == 0, "Kᵀ's MN-major reading: whole 128-byte atoms per warpgroup");

  // ---- Tensor cores. Sᵀ / dPᵀ (split along the query rows) and dV / dK (along the head dim) over both
  // warpgroups (thread index among the consumers); dQ on one warpgroup (thread index within it), one
  // kDqCols-column slice of its head-dim half at a time: the whole half (64 fp32 per thread) in flight
  // next to dK and dV made ptxas serialise every wgmma (C7512).
  using AtomLayoutHeadDim = cute::Layout<cute::Shape<cute::_1, cute::Int<kConsumerWarpGroups>, cute::_1>>;
  using TiledMmaSdP = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<
          Element, Element, float,
          cute::Shape<cute::Int<kBlockN>, cute::Int<kBlockM / kConsumerWarpGroups>, cute::Int<kHeadDim>>>(),
      AtomLayoutHeadDim{}));
  using TiledMmadKV = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<
          Element, Element, float,
          cute::Shape<cute::Int<kBlockN>, cute::Int<kHeadDimPerWarpGroup>, cute::Int<kBlockM>>,
          cute::GMMA::Major::K, cute::GMMA::Major::MN>(),
      AtomLayoutHeadDim{}));
  using TiledMmadQ = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<
          Element, Element, float,
          cute::Shape<cute::Int<kBlockM>, cute::Int<Common::kDqCols>, cute::Int<kBlockN>>,
          cute::GMMA::Major::MN, cute::GMMA::Major::MN>()));

  // ---- Shared memory. Pᵀ and dSᵀ (BLOCK_N, BLOCK_M, 2), double-buffered by step parity; the (query, key)
  // view of dSᵀ for dQ.
  using SmemLayoutPt = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW128_Atom<Element>{},
      cute::Shape<cute::Int<kBlockN>, cute::Int<kBlockM>, cute::_2>{}));  // (N, M, 2)
  using SmemLayoutP = decltype(cute::composition(
      SmemLayoutPt{},
      cute::make_layout(
          cute::Shape<cute::Int<kBlockM>, cute::Int<kBlockN>, cute::_2>{},
          cute::Stride<cute::Int<kBlockN>, cute::_1, cute::Int<kBlockM * kBlockN>>{})));  // (M, N, 2)

  // Registers -> shared memory for Pᵀ and dSᵀ: eight query rows of one key are 16 contiguous bytes in
  // both, one row of an 8x8 stmatrix tile.
  using SmemCopyAtomPdS = cute::Copy_Atom<cute::SM90_U32x4_STSM_N, Element>;

  /// dK and dV halves of 64 x 256 are staged in the K and V buffers (Pᵀ and dSᵀ hold 32 KB, not 64).
  static constexpr bool kEpilogueInDs = false;

  struct SharedStorage {
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutQ>> q;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutdO>> dout;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutK>> k;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutK>> v;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutPt>> pt;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutPt>> dst;
    alignas(1024) cute::array_aligned<float, cute::cosize_v<typename Common::SmemLayoutdQ>> dq;
    float lse_log2[2][kBlockM];  ///< lse * log2(e) of the query rows of a step, double-buffered.
    float dsum[2][kBlockM];      ///< D = rowsum(dO ∘ O) of the same rows.
    typename Common::PipelineQdO::SharedStorage pipeline_qdo;  ///< Q of a step landed / was read.
    typename PipelinedO::SharedStorage pipeline_do;            ///< dO of a step landed / was read.
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
