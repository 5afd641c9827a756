// flashattn — compile-time layouts of the Hopper backward kernel when the consumer warpgroups split the head
// dim (D = 256; tile_bwd_sm90.hpp says why). The CTA owns BLOCK_N = 64 keys and walks BLOCK_M = 32 query
// rows a step. Products (w = the consumer warpgroup, h_w its head-dim columns [w D/2, (w+1) D/2)):
//   Sᵀ = K·Qᵀ (warpgroup 0), dPᵀ = V·dOᵀ (warpgroup 1)   (BLOCK_N, BLOCK_M), K mode HEAD_DIM, SS
//   dV[:, h_w] += Pᵀ·dO[:, h_w], dK[:, h_w] += dSᵀ·Q[:, h_w]   (BLOCK_N, D/2), K mode BLOCK_M, SS: Pᵀ / dSᵀ
//                                                       from shared memory, K-major; dO / Q MN-major views
//   dQᵀ[h_w, :] = K[:, h_w]ᵀ·dSᵀ                          (D/2, BLOCK_M), K mode BLOCK_N, SS: Kᵀ (MN-major
//                                                       view of K) and dSᵀ read as (query, key), MN-major
// Pᵀ and dSᵀ are stored (key, query row) with the query rows contiguous: a 32-row block is a 64-byte row,
// so their swizzle is the 64-byte one, and read transposed that is the MN-major 64-byte atom dQᵀ wants.
// Warpgroup 1 needs P itself (dS = P ∘ (dP − D)); warpgroup 0 hands it over in fp32 through shared memory,
// each thread's values at the same accumulator positions as the reader's (both run the same TiledMma).
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

#include "cuda/sm90/layouts_bwd_sm90.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
struct BwdLayoutsSm90<Element, kHeadDim, true>
    : BwdLayoutsSm90Common<Element, kHeadDim, bwd_tile_sm90(kHeadDim).block_m,
                           bwd_tile_sm90(kHeadDim).block_n, bwd_tile_sm90(kHeadDim).stages> {
  using Common = BwdLayoutsSm90Common<Element, kHeadDim, bwd_tile_sm90(kHeadDim).block_m,
                                      bwd_tile_sm90(kHeadDim).block_n, bwd_tile_sm90(kHeadDim).stages>;
  static constexpr bool kSplitHeadDim = true;
  static constexpr int kBlockM = Common::kBlockM;
  static constexpr int kBlockN = Common::kBlockN;
  static constexpr int kConsumerWarpGroups = Common::kConsumerWarpGroups;
  static constexpr int kHeadDimPerWarpGroup = Common::kHeadDimPerWarpGroup;
  static_assert(kBlockN == 64, "Sᵀ and dPᵀ are one warpgroup's 64 rows each");
  static_assert(kBlockM == 32, "Pᵀ and dSᵀ rows are one 64-byte swizzle atom wide");
  static_assert(kHeadDimPerWarpGroup % 64 == 0, "dQᵀ's M mode: whole 64-row wgmma tiles per warpgroup");

  // ---- Tensor cores. Sᵀ / dPᵀ and dQᵀ run on one warpgroup each (thread index within the warpgroup);
  // dV and dK on both, split along the head dim (thread index among the consumers).
  using TiledMmaSdP = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<
          Element, Element, float,
          cute::Shape<cute::Int<kBlockN>, cute::Int<kBlockM>, cute::Int<kHeadDim>>>()));
  using TiledMmadKV = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<
          Element, Element, float,
          cute::Shape<cute::Int<kBlockN>, cute::Int<kHeadDimPerWarpGroup>, cute::Int<kBlockM>>,
          cute::GMMA::Major::K, cute::GMMA::Major::MN>(),
      cute::Layout<cute::Shape<cute::_1, cute::Int<kConsumerWarpGroups>, cute::_1>>{}));
  using TiledMmadQt = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<Element, Element, float,
                                 cute::Shape<cute::_64, cute::Int<kBlockM>, cute::Int<kBlockN>>,
                                 cute::GMMA::Major::MN, cute::GMMA::Major::MN>()));

  // ---- Shared memory. Pᵀ and dSᵀ (BLOCK_N, BLOCK_M, 2), double-buffered by step parity; the (query, key)
  // view of dSᵀ for dQᵀ.
  using SmemLayoutPt = decltype(cute::tile_to_shape(
      cute::GMMA::Layout_K_SW64_Atom<Element>{},
      cute::Shape<cute::Int<kBlockN>, cute::Int<kBlockM>, cute::_2>{}));  // (N, M, 2)
  using SmemLayoutP = decltype(cute::composition(
      SmemLayoutPt{},
      cute::make_layout(
          cute::Shape<cute::Int<kBlockM>, cute::Int<kBlockN>, cute::_2>{},
          cute::Stride<cute::Int<kBlockN>, cute::_1, cute::Int<kBlockM * kBlockN>>{})));  // (M, N, 2)
  /// A warpgroup's half of the dQ staging buffer read as (head dim, query row), the shape of dQᵀ.
  using SmemLayoutdQtWarpGroup = decltype(cute::composition(
      typename Common::SmemLayoutdQWarpGroup{},
      cute::make_layout(cute::Shape<cute::Int<kHeadDimPerWarpGroup>, cute::Int<kBlockM>>{},
                        cute::Stride<cute::Int<kBlockM>, cute::_1>{})));  // (D/2, M)
  /// Values of Sᵀ (or dPᵀ) per consumer thread: the fp32 P handed from warpgroup 0 to warpgroup 1.
  static constexpr int kScoresPerThread = kBlockN * kBlockM / 128;

  // Registers -> shared memory for Pᵀ and dSᵀ: eight query rows of one key are 16 contiguous bytes in
  // both, one row of an 8x8 stmatrix tile.
  using SmemCopyAtomPdS = cute::Copy_Atom<cute::SM90_U32x4_STSM_N, Element>;
  // dQᵀ registers -> the (query row, head dim) staging buffer: a thread's accumulator pairs are adjacent
  // query rows, 128 bytes apart there, so one 32-bit store each.
  using SmemCopyAtomdQt = cute::Copy_Atom<SharedStore32, float>;

  struct SharedStorage {
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutQ>> q;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutQ>> dout;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutK>> k;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<typename Common::SmemLayoutK>> v;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutPt>> pt;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutPt>> dst;
    alignas(1024) cute::array_aligned<float, cute::cosize_v<typename Common::SmemLayoutdQ>> dq;
    /// P (fp32; with softcap already times 1 - tanh²) by [parity][value][consumer thread of warpgroup 0]:
    /// a warp's accesses to one value are 32 consecutive floats.
    float p_fp32[2][kScoresPerThread][128];
    float lse_log2[2][kBlockM];  ///< lse * log2(e) of the query rows of a step, double-buffered.
    float dsum[2][kBlockM];      ///< D = rowsum(dO ∘ O) of the same rows.
    typename Common::PipelineQdO::SharedStorage pipeline_qdo;  ///< Q and dO of a step landed / were read.
    cutlass::arch::ClusterTransactionBarrier kv_full;          ///< K and V landed (TMA transaction bytes).
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one CTA is at most 227 KB (sm90)");
};

}  // namespace flashattn::cuda::sm90
