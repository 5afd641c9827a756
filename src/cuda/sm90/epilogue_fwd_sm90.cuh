// flashattn — the epilogue of the Hopper forward kernel. Each consumer warpgroup rounds its 64 rows of O
// (fp32 registers, already normalised) to the element type and stages them with stmatrix in a 64-row block
// of shared memory that no one else reads or writes meanwhile: its own block of the tile's Q buffer (two Q
// buffers; its Q·Kᵀ, the only reader of that block, has completed), or a stage of the K or V ring that the
// main loop held back (one Q buffer, Layouts::kStageOInRings). One thread of the warpgroup then hands the
// block to a TMA store and the warpgroup moves on. In a varlen batch a warpgroup whose rows run past the
// sequence's end writes whole rows in 16-byte vectors instead, leaving the rows past the end alone (they
// belong to the next sequence). lse is written by the lane holding each row's first column. With GQA
// packing (Layouts::kPackGqa) a block's rows are (token, query head) pairs that no box describes: every
// warpgroup writes its valid rows with 16-byte vectors, each row at its own address, and lse likewise.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

#include "cuda/common/epilogue_store.cuh"
#include "cuda/common/fragment.cuh"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/params_fwd_sm90.cuh"
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
    if constexpr (Layouts::kPackGqa) {
      if (lse_out != nullptr) store_lse_packed(params, tOcO_rc, lse, lse_out, work);
    } else {
      if (lse_out != nullptr) store_lse_rows(tOcO_rc, lse, lse_out, work.q_rows);
    }
    // Registers -> shared memory: stmatrix writes 8x8 blocks of 16-bit values, a row per lane. sO is the
    // tile as the tiled copy sees it, placed so that this warpgroup's rows (the only ones it writes) fall on
    // o_block.
    Element* const o_buffer = o_block - cosize_v<typename Layouts::SmemLayoutOWarpGroup> * warp_group;
    Tensor sO =
        make_tensor(make_smem_ptr(o_buffer), typename Layouts::SmemLayoutO{});  // (BLOCK_M, HEAD_DIM_V)
    auto smem_copy = make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, Element>{}, mma);
    auto smem_thr = smem_copy.get_slice(thread);
    copy(smem_copy, smem_thr.retile_S(rO), smem_thr.partition_D(sO));

    if constexpr (Layouts::kPackGqa) {
      named_barrier_sync(128, FwdBarrier::kWarpGroup, warp_group);  // the warpgroup's O rows are in smem
      store_o_packed(params, o_block, work, warp_group, thread % 128);
      return;
    }
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

 private:
  /// GQA packing: the lse of the thread's valid rows, each at its (query head, token).
  template <class Params, class Work, class CoordRowCol, int kRows>
  __device__ static void store_lse_packed(const Params& params, const CoordRowCol& tOcO_rc,
                                          const float (&lse)[kRows], float* lse_out, const Work& work) {
    using namespace cute;
    if (get<1>(tOcO_rc(0, 0)) != 0) return;  // the lane holding a row's first column writes it
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const int row = get<0>(tOcO_rc(r, 0));
      if (row < work.q_rows) {
        *packed_row_address(params.by_group, lse_out, 1, params.base.problem.lse_head_stride,
                            work.row0 + row) = lse[r];
      }
    }
  }

  /// GQA packing: the warpgroup's valid rows of O, from its staging block (64 x HEAD_DIM_V in the layout
  /// stmatrix wrote) to their own addresses in global memory, 16 bytes per thread and copy (`lane`: the
  /// thread's index in the warpgroup).
  template <class Params, class Work>
  __device__ static void store_o_packed(const Params& params, const Element* o_block, const Work& work,
                                        int warp_group, int lane) {
    using namespace cute;
    const ForwardParams& p = params.base.problem;
    Tensor sO = make_tensor(make_smem_ptr(o_block), typename Layouts::SmemLayoutOWarpGroup{});  // (64, Dv)
    Element* const out = static_cast<Element*>(p.out) + work.out_offset;
    constexpr int kChunksPerRow = kHeadDimV / 8;  // 16-byte chunks
    static_assert(64 * kChunksPerRow % 128 == 0, "the warpgroup's 128 threads share its rows' chunks evenly");
    CUTE_UNROLL
    for (int i = 0; i < 64 * kChunksPerRow / 128; ++i) {
      const int chunk = lane + 128 * i;
      const int block_row = chunk / kChunksPerRow;
      const int row = 64 * warp_group + block_row;  // within the tile
      if (row < work.q_rows) {
        const int col = chunk % kChunksPerRow * 8;
        Element* dst =
            packed_row_address(params.by_group, out, p.out_strides.row, p.out_strides.head, work.row0 + row);
        *reinterpret_cast<uint4*>(dst + col) =
            load_shared_16_bytes(cast_smem_ptr_to_uint(&sO(block_row, col)));
      }
    }
  }
};

}  // namespace flashattn::cuda::sm90
