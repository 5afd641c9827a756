// flashattn — the epilogue of the Hopper forward kernel. Each consumer warpgroup rounds its 64 rows of O
// (fp32 registers, already normalised) to the element type and stages them with stmatrix in a 64-row block
// of shared memory that no one else reads or writes meanwhile: its own block of the tile's Q buffer (two Q
// buffers; its Q·Kᵀ, the only reader of that block, has completed), or a stage of the K or V ring that the
// main loop held back (one Q buffer, Layouts::kStageOInRings). One thread of the warpgroup then hands the
// block to a TMA store and the warpgroup moves on. In a varlen batch a warpgroup whose rows run past the
// sequence's end writes whole rows in 16-byte vectors instead, leaving the rows past the end alone (they
// belong to the next sequence). lse is written by the lane holding each row's first column.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/epilogue_store.cuh"
#include "cuda/common/fragment.cuh"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/primitives_sm90.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
struct FwdEpilogueSm90 {
  using Layouts = FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  static constexpr int kBlockM = Layouts::kBlockM;

  /// The thread of a consumer warpgroup that issues and waits for its TMA stores.
  __device__ static bool is_store_issuer(int consumer_thread) { return consumer_thread % 128 == 0; }

  /// Blocks until the calling store issuer's TMA stores have read their shared memory (before the buffer is
  /// written again or handed back, and before the kernel exits).
  __device__ static void wait_stores_read(int consumer_thread) {
    if (is_store_issuer(consumer_thread)) cute::tma_store_wait<0>();
  }

  /// o_block: the calling warpgroup's 64-row staging block (1024-byte aligned, 64 x HEAD_DIM_V elements),
  /// which no TMA store still reads; tOrO: (MMA, MMA_M, MMA_N) fp32 of TiledMmaPV of the calling consumer
  /// thread, of warpgroup `warp_group`; lse: natural-log lse of the thread's rows in the order of
  /// gmma_acc_rowcol; work: the tile (Mainloop::Work); gO: (BLOCK_M, HEAD_DIM_V) of the tile in global
  /// memory; lse_out: the tile's first lse entry, or null.
  template <class Params, class Work, class AccO, class GO, int kRows>
  __device__ static void store(const Params& params, Element* o_block, const AccO& tOrO,
                               const float (&lse)[kRows], const Work& work, GO& gO, float* lse_out,
                               int warp_group) {
    using namespace cute;
    const int thread = thread_index_in_loop() - 128;  // among the consumer threads
    typename Layouts::TiledMmaPV mma;
    Tensor rO = convert_fragment<Element>(tOrO);
    Tensor tOcO_acc =
        mma.get_thread_slice(thread).partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDimV>>{}));
    Tensor tOcO_rc = make_tensor(tOcO_acc.data(), gmma_acc_rowcol_layout(tOcO_acc.layout()));  // (ROWS, COLS)
    if (lse_out != nullptr) store_lse_rows(tOcO_rc, lse, lse_out, work.q_rows);
    // Registers -> shared memory: stmatrix writes 8x8 blocks of 16-bit values, a row per lane. sO is the
    // tile as the tiled copy sees it, placed so that this warpgroup's rows (the only ones it writes) fall on
    // o_block.
    Element* const o_buffer = o_block - cosize_v<typename Layouts::SmemLayoutOWarpGroup> * warp_group;
    Tensor sO =
        make_tensor(make_smem_ptr(o_buffer), typename Layouts::SmemLayoutO{});  // (BLOCK_M, HEAD_DIM_V)
    auto smem_copy = make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, Element>{}, mma);
    auto smem_thr = smem_copy.get_slice(thread);
    copy(smem_copy, smem_thr.retile_S(rO), smem_thr.partition_D(sO));

    // A dense tensor's extent clips the rows past the sequence's end; in a varlen batch only a warpgroup
    // whose rows all lie inside the sequence may store whole boxes.
    const bool whole_box = !params.base.problem.is_varlen() || work.q_rows >= 64 * (warp_group + 1);
    if (whole_box) {
      cutlass::arch::fence_view_async_shared();  // the stmatrix writes, seen by the TMA unit (async proxy)
      named_barrier_sync(128, FwdBarrier::kWarpGroup, warp_group);
      if (is_store_issuer(thread)) {
        Tensor sO_wg = make_tensor(make_smem_ptr(o_block),
                                   typename Layouts::SmemLayoutOWarpGroup{});  // (64, HEAD_DIM_V)
        Tensor mO =
            domain_offset(make_coord(static_cast<int>(work.q_row_offset), _0{}),
                          params.tma_o.get_tma_tensor(params.shape_o)(_, _, work.head, work.tma_batch));
        Tensor gO_wg = local_tile(mO, Shape<_64, Int<kHeadDimV>>{},
                                  make_coord(work.row0 / 64 + warp_group, _0{}));  // (64, HEAD_DIM_V)
        auto [tOgO, tOsO] = tma_partition(params.tma_o, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sO_wg),
                                          group_modes<0, 2>(gO_wg));
        copy(params.tma_o, tOsO, tOgO);
        tma_store_arrive();
      }
      return;
    }
    named_barrier_sync(128, FwdBarrier::kWarpGroup, warp_group);  // the warpgroup's O rows are in smem

    // Shared -> global: the warpgroup's rows inside the sequence, 16 bytes per thread and copy.
    Tensor sO_wg =
        local_tile(sO, Shape<_64, Int<kHeadDimV>>{}, make_coord(warp_group, _0{}));  // (64, HEAD_DIM_V)
    Tensor gO_wg = local_tile(gO, Shape<_64, Int<kHeadDimV>>{}, make_coord(warp_group, _0{}));
    Tensor cO_wg = local_tile(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDimV>>{}),
                              Shape<_64, Int<kHeadDimV>>{}, make_coord(warp_group, _0{}));
    typename Layouts::GmemTiledCopyO gmem_copy;
    auto gmem_thr = gmem_copy.get_thread_slice(thread % 128);
    Tensor tOsO = gmem_thr.partition_S(sO_wg);  // (CPY, CPY_M, CPY_K)
    Tensor tOgO = gmem_thr.partition_D(gO_wg);
    store_rows_predicated(gmem_copy, tOsO, tOgO, gmem_thr.partition_D(cO_wg), work.q_rows);
  }
};

}  // namespace flashattn::cuda::sm90
