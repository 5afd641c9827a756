// flashattn — the epilogue of the Hopper forward kernel: each consumer warpgroup rounds its 64 rows of O
// (fp32 registers, already normalised) to the element type, stages them in shared memory (its rows of
// O's buffer, or of Q's buffer, which only its own wgmma read, where O gets none) with stmatrix, and writes
// whole rows to global memory in 16-byte vectors, leaving rows past the sequence's end alone (in a varlen
// batch they belong to the next sequence). lse is written by the lane holding each row's first column. Dense
// tiles can later leave through a TMA store instead; varlen tails keep the vector stores.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/epilogue_store.cuh"
#include "cuda/common/fragment.cuh"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/primitives_sm90.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
struct FwdEpilogueSm90 {
  using Layouts = FwdLayoutsSm90<Element, kHeadDim>;
  static constexpr int kBlockM = Layouts::kBlockM;

  /// tOrO: (MMA, MMA_M, MMA_N) fp32 of TiledMmaPV of the calling consumer thread, of warpgroup
  /// `warp_group`; lse: natural-log lse of the thread's rows in the order of gmma_acc_rowcol; gO:
  /// (BLOCK_M, HEAD_DIM) of the block; lse_out: the block's first lse entry, or null.
  template <class AccO, class GO, int kRows>
  __device__ static void store(typename Layouts::SharedStorage& smem, const AccO& tOrO,
                               const float (&lse)[kRows], GO& gO, float* lse_out, int q_rows,
                               int warp_group) {
    using namespace cute;
    const int thread = thread_index_in_loop() - 128;  // among the consumer threads
    Tensor sO = make_tensor(make_smem_ptr(smem.o()), typename Layouts::SmemLayoutO{});  // (BLOCK_M, HEAD_DIM)
    typename Layouts::TiledMmaPV mma;
    // The warpgroup's threads may still be reading the previous tile's rows (a tile without keys has no
    // barrier between two epilogues).
    named_barrier_sync(128, FwdBarrier::kWarpGroup, warp_group);

    // Registers -> shared memory: stmatrix writes 8x8 blocks of 16-bit values, a row per lane.
    Tensor rO = convert_fragment<Element>(tOrO);
    auto smem_copy = make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, Element>{}, mma);
    auto smem_thr = smem_copy.get_slice(thread);
    copy(smem_copy, smem_thr.retile_S(rO), smem_thr.partition_D(sO));

    if (lse_out != nullptr) {
      Tensor tOcO = mma.get_thread_slice(thread).partition_C(
          make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));
      store_lse_rows(make_tensor(tOcO.data(), gmma_acc_rowcol_layout(tOcO.layout())), lse, lse_out, q_rows);
    }
    named_barrier_sync(128, FwdBarrier::kWarpGroup, warp_group);  // the warpgroup's O rows are in smem

    // Shared -> global: the warpgroup's 64 rows, 16 bytes per thread and copy.
    Tensor sO_wg =
        local_tile(sO, Shape<_64, Int<kHeadDim>>{}, make_coord(warp_group, _0{}));  // (64, HEAD_DIM)
    Tensor gO_wg = local_tile(gO, Shape<_64, Int<kHeadDim>>{}, make_coord(warp_group, _0{}));
    Tensor cO_wg = local_tile(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}),
                              Shape<_64, Int<kHeadDim>>{}, make_coord(warp_group, _0{}));
    typename Layouts::GmemTiledCopyO gmem_copy;
    auto gmem_thr = gmem_copy.get_thread_slice(thread % 128);
    Tensor tOsO = gmem_thr.partition_S(sO_wg);  // (CPY, CPY_M, CPY_K)
    Tensor tOgO = gmem_thr.partition_D(gO_wg);
    Tensor tOcO = gmem_thr.partition_D(cO_wg);
    store_rows_predicated(gmem_copy, tOsO, tOgO, tOcO, q_rows);
  }
};

}  // namespace flashattn::cuda::sm90
