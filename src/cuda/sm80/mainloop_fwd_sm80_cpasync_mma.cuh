// flashattn — the main loop of the portable forward kernel: for one block of query rows, stream the key
// tiles through shared memory with cp.async and compute S = Q·Kᵀ, mask, online softmax and O += P·V with
// ldmatrix + mma.sync m16n8k16 (CuTe SM80 atoms), all in registers.
//
// Pipeline (one buffer each for Q, K and V; `next` is the key tile visited after n):
//   wait K[n]  | issue V[n]    | S = Q·K[n]ᵀ  (the V load is in flight)
//   wait V[n]  | issue K[next] | softmax, O += P·V[n]  (the K load is in flight)
// Each wait is followed by a CTA barrier: it publishes the landed tile to every warp and proves every warp
// is done reading the buffer the next load overwrites.
//
// Kinds of step (FlashAttention-2's split, one step further): the masked steps serve the few tiles that
// cross a row's key interval; those crossing only interval ends (the causal diagonal, the sequence end)
// test one bound per score, those that may cross a start too (a window's left edge) test both. The
// score-mod step serves every tile of a run with softcap, ALiBi or scale <= 0. The bulk step has no
// predicate, mask or score transform at all.
//
// Visiting order: each run of tiles from high to low, the end-masked run (the sequence-end tile, the
// causal diagonal) first, so the only tile that can be partial is visited first and only the masked steps
// predicate their loads. The long-key tiles then visit the bulk and last a window's left-edge tiles: one
// descending walk, the K/V pointers stepping back one tile per step. The short-key tile (D = 256, 64x64)
// visits the left-edge tiles before the bulk so that nothing only the masked steps need (the key range,
// the block's rows) stays live through the bulk loop: with the bulk first, ptxas spilled the softmax row
// sums in that loop (an LDL and an STL per row and step), 3.6% behind FlashAttention-2 at D = 256 full
// S = 512. Its pointers move relative to the tile they point at, so no base pointer stays live either.
// D = 128's long-key tile (128x64, 4 warps: O 128 + S 64 fp32 per thread) takes the same order: with the
// descending walk ptxas had no registers left to load K's ldmatrix fragments ahead of their mma.sync (53 of
// the bulk loop's 256 HMMAs within two instructions of their LDSM), the short-scoreboard stall that put it
// 3% behind FlashAttention-2 under ncu at S = 512. The other long-key tiles keep the descending walk: their
// bulk loops have no such gap, and under the runs order D = 256's long-sequence runs measured 2-4% slower
// (docs/PERF.md, portable path). The order changes only the summation order of the softmax.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <cute/tensor.hpp>

#include "cuda/common/fragment.cuh"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/common/mask.cuh"
#include "cuda/common/score_mods.cuh"
#include "cuda/common/softmax.cuh"
#include "cuda/sm80/layouts_fwd_sm80.cuh"

namespace flashattn::cuda::sm80 {

/// Copies rows [0, valid_rows) of a partitioned (ROWS, HEAD_DIM) global tile into shared memory with
/// cp.async and zero-fills the other rows without reading them: past a sequence's end lie another
/// sequence's rows, NaN padding or the end of the allocation. Zero keys score 0 and are masked; zero
/// values meet p = 0, so nothing non-finite enters the products.
template <class TiledCopy, class Src, class Dst, class Coords>
__device__ __forceinline__ void copy_rows_async(const TiledCopy& tiled_copy, const Src& src, Dst&& dst,
                                                const Coords& coords, int valid_rows) {
  using namespace cute;
  CUTE_UNROLL
  for (int m = 0; m < size<1>(dst); ++m) {
    if (get<0>(coords(0, m, 0)) < valid_rows) {
      copy(tiled_copy, src(_, m, _), dst(_, m, _));
    } else {
      clear(dst(_, m, _));
    }
  }
}

/// acc += A·B over the k mode, both operands read from shared memory by ldmatrix slice by slice (no
/// explicit one-slice-ahead prefetch: ptxas hoists the loads as far as the registers allow).
template <class TiledMma, class Acc, class RegA, class RegB, class SmemA, class SmemB, class CopyA,
          class CopyB>
__device__ __forceinline__ void gemm_smem_smem(const TiledMma& mma, Acc& acc, RegA& tCrA, RegB& tCrB,
                                               const SmemA& tCsA, const SmemB& tCsB, const CopyA& copy_a,
                                               const CopyB& copy_b) {
  using namespace cute;
  auto tCrA_view = copy_a.get_slice(threadIdx.x).retile_D(tCrA);
  auto tCrB_view = copy_b.get_slice(threadIdx.x).retile_D(tCrB);
  CUTE_UNROLL
  for (int k = 0; k < size<2>(tCrA); ++k) {
    copy(copy_a, tCsA(_, _, k), tCrA_view(_, _, k));
    copy(copy_b, tCsB(_, _, k), tCrB_view(_, _, k));
    gemm(mma, tCrA(_, _, k), tCrB(_, _, k), acc);
  }
}

/// acc += A·B with A already in registers (P) and B read from shared memory slice by slice. No explicit
/// prefetch: two whole k-slices of B (HEAD_DIM / 4 registers each) do not fit beside O and P; ptxas
/// hoists each ldmatrix as far as the registers allow.
template <class TiledMma, class Acc, class RegA, class RegB, class SmemB, class CopyB>
__device__ __forceinline__ void gemm_reg_smem(const TiledMma& mma, Acc& acc, const RegA& tCrA, RegB& tCrB,
                                              const SmemB& tCsB, const CopyB& copy_b) {
  using namespace cute;
  auto tCrB_view = copy_b.get_slice(threadIdx.x).retile_D(tCrB);
  CUTE_UNROLL
  for (int k = 0; k < size<2>(tCrA); ++k) {
    copy(copy_b, tCsB(_, _, k), tCrB_view(_, _, k));
    gemm(mma, tCrA(_, _, k), tCrB(_, _, k), acc);
  }
}

template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
struct FwdMainloopSm80 {
  using Layouts = FwdLayouts<Element, kHeadDim, kHeadDimV, kRegime>;
  static constexpr int kBlockM = Layouts::kBlockM;
  static constexpr int kBlockN = Layouts::kBlockN;
  /// Accumulator rows per thread: 2 per 16-row MMA tile the thread's warp owns.
  static constexpr int kRowsPerThread = 2 * kBlockM / (16 * Layouts::kWarps);
  using Softmax = OnlineSoftmax<kRowsPerThread>;
  /// Whether the bulk run is visited last (see the file comment; the tile configuration chooses).
  static constexpr bool kBulkLast = Layouts::kTile.bulk_last;

  /// What a main-loop step does to the scores before the softmax (see the file comment).
  enum class StepKind { bulk, mask_end, mask_both, score_mods };
  template <StepKind kKind>
  using Step = std::integral_constant<StepKind, kKind>;

  /// Where one CTA's work lies within its sequence.
  struct Work {
    int row0;      ///< First query row of the block.
    int q_rows;    ///< Valid query rows of the block (<= BLOCK_M).
    int seqlen_k;  ///< Keys of the sequence.
    int n_begin;   ///< Key tiles [n_begin, n_end) hold every key some row of the block keeps.
    int n_end;
    float slope_log2;  ///< ALiBi slope * log2(e) of this (batch, head); unused without ALiBi.
  };

  /// Lower bounds of the runs of key tiles [n_begin, n_end) splits into by step kind (see the file
  /// comment); either may lie above n_end, which the descending walk needs no clamp for.
  struct TileRuns {
    int end_lo;   ///< [end_lo, n_end): the end-masked tiles.
    int bulk_lo;  ///< [bulk_lo, end_lo): the bulk; [n_begin, bulk_lo): a window's left-edge tiles.
  };

  /// Tiles n >= n_right may hold keys past some row's key_end (key_end grows with the row, so no tile below
  /// n_right does); tiles n < n_left may hold keys before some row's key_begin (none at or above n_left
  /// does). So tiles at or above both bounds need the end test alone, tiles in [n_left, n_right) are kept
  /// whole by every row, and tiles below n_left may cross either end. Not with score mods.
  __device__ __forceinline__ static TileRuns tile_runs(const Work& work, const KeyRange& range) {
    const int n_right = range.key_end(work.row0) / kBlockN;
    const int n_left = (range.key_begin(work.row0 + kBlockM - 1) + kBlockN - 1) / kBlockN;
    return {max(max(n_right, n_left), work.n_begin), max(n_left, work.n_begin)};
  }

  /// Accumulates O (BLOCK_M, HEAD_DIM_V) and the softmax state of the block over its key tiles.
  /// gQ: (BLOCK_M, HEAD_DIM); gK, gV: (BLOCK_N, HEAD_DIM), (BLOCK_N, HEAD_DIM_V) tiles of the last key tile
  /// n_end - 1; key tile n lies (n - (n_end - 1)) * k_tile_stride (v_tile_stride) elements from them.
  template <class GQ, class GK, class GV, class AccO>
  __device__ __forceinline__ static void run(const FwdKernelParams& params,
                                             typename Layouts::SharedStorage& smem, const GQ& gQ, GK gK,
                                             GV gV, std::int64_t k_tile_stride, std::int64_t v_tile_stride,
                                             const Work& work, const KeyRange& range, AccO& acc_o,
                                             Softmax& softmax) {
    using namespace cute;
    const int tid = threadIdx.x;
    Tensor sQ =
        make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});  // (BLOCK_M, HEAD_DIM)
    Tensor sK =
        make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});  // (BLOCK_N, HEAD_DIM)
    Tensor sV =
        make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutV{});  // (BLOCK_N, HEAD_DIM_V)
    Tensor sVt =
        make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutVt{});  // (HEAD_DIM_V, BLOCK_N)

    // Global -> shared partitions, with the (row, col) of each copied element for the row predicates.
    typename Layouts::GmemTiledCopyQK gmem_copy;
    auto gmem_thr = gmem_copy.get_thread_slice(tid);
    Tensor tQgQ = gmem_thr.partition_S(gQ);  // (CPY, CPY_M, CPY_K)
    Tensor tQsQ = gmem_thr.partition_D(sQ);
    Tensor tKgK = gmem_thr.partition_S(gK);  // (CPY, CPY_N, CPY_K)
    Tensor tKsK = gmem_thr.partition_D(sK);
    Tensor tQcQ = gmem_thr.partition_S(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));
    Tensor tKcK = gmem_thr.partition_S(make_identity_tensor(Shape<Int<kBlockN>, Int<kHeadDim>>{}));
    typename Layouts::GmemTiledCopyV gmem_copy_v;  // the same copy as gmem_copy when Dv = D
    auto gmem_thr_v = gmem_copy_v.get_thread_slice(tid);
    Tensor tVgV = gmem_thr_v.partition_S(gV);  // (CPY, CPY_N, CPY_K)
    Tensor tVsV = gmem_thr_v.partition_D(sV);
    Tensor tVcV = gmem_thr_v.partition_S(make_identity_tensor(Shape<Int<kBlockN>, Int<kHeadDimV>>{}));

    // Register fragments of the two products.
    typename Layouts::TiledMma mma;
    auto thr_mma = mma.get_thread_slice(tid);
    Tensor tSrQ = thr_mma.partition_fragment_A(sQ);    // (MMA, MMA_M, MMA_K)
    Tensor tSrK = thr_mma.partition_fragment_B(sK);    // (MMA, MMA_N, MMA_K)
    Tensor tOrVt = thr_mma.partition_fragment_B(sVt);  // (MMA, MMA_K = HEAD_DIM / 8, MMA_N = BLOCK_N / 16)

    // Shared -> register (ldmatrix) partitions.
    auto smem_copy_q = make_tiled_copy_A(typename Layouts::SmemCopyAtom{}, mma);
    auto smem_copy_k = make_tiled_copy_B(typename Layouts::SmemCopyAtom{}, mma);
    auto smem_copy_v = make_tiled_copy_B(typename Layouts::SmemCopyAtomTransposed{}, mma);
    Tensor tSsQ = smem_copy_q.get_slice(tid).partition_S(sQ);
    Tensor tSsK = smem_copy_k.get_slice(tid).partition_S(sK);
    Tensor tOsVt = smem_copy_v.get_slice(tid).partition_S(sVt);

    // (row, col) within the tile of each score this thread holds, as a (rows, cols) view.
    Tensor tScS = thr_mma.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kBlockN>>{}));
    Tensor tScS_rc = make_tensor(tScS.data(), acc_rowcol_layout(tScS.layout()));  // (ROWS, COLS)
    Tensor acc_o_rc = acc_rowcol(acc_o);                                          // (ROWS, HEAD_DIM_V cols)

    // Bulk-last order only: the runs clamped to [n_begin, n_end) (with score mods every tile is one run,
    // visited as end-masked); the first tile of the bulk run and of the left-edge run, -1 when that run
    // and every run after it are empty; and the first tile visited.
    const TileRuns bounds = params.score_mods ? TileRuns{work.n_begin, work.n_begin} : tile_runs(work, range);
    const int end_lo = min(bounds.end_lo, work.n_end);
    const int bulk_lo = min(bounds.bulk_lo, end_lo);
    const int bulk_first = bulk_lo < end_lo ? end_lo - 1 : -1;
    const int left_first = work.n_begin < bulk_lo ? bulk_lo - 1 : bulk_first;
    const int first = !kBulkLast || end_lo < work.n_end ? work.n_end - 1 : left_first;

    // Bulk-last order only: tKgK and tVgV point at key tiles k_tile and v_tile; point_at moves one to
    // tile n relative to where it is.
    int k_tile = work.n_end - 1;
    int v_tile = work.n_end - 1;
    auto point_at = [&](auto& tensor, int& at, std::int64_t tile_stride, int n) {
      tensor.data() = tensor.data() + (n - at) * tile_stride;
      at = n;
    };

    copy_rows_async(gmem_copy, tQgQ, tQsQ, tQcQ, work.q_rows);
    if (work.n_end > work.n_begin) {
      if constexpr (kBulkLast) point_at(tKgK, k_tile, k_tile_stride, first);
      copy_rows_async(gmem_copy, tKgK, tKsK, tKcK, work.seqlen_k - first * kBlockN);
    }
    cp_async_fence();

    // One step on key tile n, whose K is in shared memory (or landing); it loads V of n and K of `next`
    // (none when next < 0). In the descending walk next is n - 1 or none, and tKgK and tVgV point at tile
    // n on entry and at n - 1 on exit. Each kind is a separate copy so that the causal diagonal tiles
    // carry none of the window or score-mod code.
    auto step = [&](int n, int next, auto kind) __attribute__((always_inline)) {
      constexpr StepKind kKind = decltype(kind)::value;
      constexpr bool kMasked = kKind != StepKind::bulk;
      Tensor acc_s = partition_fragment_C(mma, Shape<Int<kBlockM>, Int<kBlockN>>{});  // (MMA, MMA_M, MMA_N)
      clear(acc_s);
      cp_async_wait<0>();
      __syncthreads();
      if constexpr (kBulkLast) point_at(tVgV, v_tile, v_tile_stride, n);
      if constexpr (kMasked) {
        copy_rows_async(gmem_copy_v, tVgV, tVsV, tVcV, work.seqlen_k - n * kBlockN);
      } else {
        copy(gmem_copy_v, tVgV, tVsV);
      }
      cp_async_fence();
      if constexpr (!kBulkLast) tVgV.data() = tVgV.data() + (-v_tile_stride);

      gemm_smem_smem(mma, acc_s, tSrQ, tSrK, tSsQ, tSsK, smem_copy_q, smem_copy_k);

      cp_async_wait<0>();
      __syncthreads();
      if constexpr (kBulkLast) {
        if (next >= 0) {
          point_at(tKgK, k_tile, k_tile_stride, next);
          copy(gmem_copy, tKgK, tKsK);  // next is not the first tile visited: every row is valid
          cp_async_fence();
        }
      } else {
        tKgK.data() = tKgK.data() + (-k_tile_stride);
        if (n > work.n_begin) {
          copy(gmem_copy, tKgK, tKsK);  // tile n - 1 < the last tile: every row is valid
          cp_async_fence();
        }
      }

      Tensor scores = acc_rowcol(acc_s);  // (ROWS, BLOCK_N cols)
      if constexpr (kKind == StepKind::score_mods) {
        scores_to_log2(params, scores);
        if (params.has_alibi) {
          mask_scores<true>(scores, tScS_rc, work.row0, n * kBlockN, range, work.slope_log2);
        } else {
          mask_scores<false>(scores, tScS_rc, work.row0, n * kBlockN, range, 0.0f);
        }
      } else if constexpr (kKind == StepKind::mask_both) {
        mask_scores<false, MaskEdges::both>(scores, tScS_rc, work.row0, n * kBlockN, range, 0.0f);
      } else if constexpr (kKind == StepKind::mask_end) {
        mask_scores<false, MaskEdges::end>(scores, tScS_rc, work.row0, n * kBlockN, range, 0.0f);
      }
      softmax.update(scores, acc_o_rc);

      Tensor rP = convert_fragment<Element>(acc_s);
      Tensor tOrP =
          make_tensor(rP.data(), acc_as_a_layout(rP.layout()));  // (MMA, MMA_M, MMA_K = BLOCK_N / 16)
      gemm_reg_smem(mma, acc_o, tOrP, tOrVt, tOsVt, smem_copy_v);
    };

    if (params.score_mods) {
      for (int n = work.n_end - 1; n >= work.n_begin; --n) {
        step(n, n - 1 >= work.n_begin ? n - 1 : -1, Step<StepKind::score_mods>{});
      }
    } else if constexpr (kBulkLast) {
      for (int n = work.n_end - 1; n >= end_lo; --n) {
        step(n, n - 1 >= end_lo ? n - 1 : left_first, Step<StepKind::mask_end>{});
      }
      for (int n = bulk_lo - 1; n >= work.n_begin; --n) {
        step(n, n - 1 >= work.n_begin ? n - 1 : bulk_first, Step<StepKind::mask_both>{});
      }
      for (int n = end_lo - 1; n >= bulk_lo; --n) {
        step(n, n - 1 >= bulk_lo ? n - 1 : -1, Step<StepKind::bulk>{});
      }
    } else {
      const TileRuns walk = tile_runs(work, range);
      int n = work.n_end - 1;
      for (; n >= walk.end_lo; --n) step(n, n - 1, Step<StepKind::mask_end>{});
      for (; n >= walk.bulk_lo; --n) step(n, n - 1, Step<StepKind::bulk>{});
      for (; n >= work.n_begin; --n) step(n, n - 1, Step<StepKind::mask_both>{});
    }
    cp_async_wait<0>();  // with no key tile the Q load is still in flight; the epilogue reuses its buffer
  }
};

}  // namespace flashattn::cuda::sm80
