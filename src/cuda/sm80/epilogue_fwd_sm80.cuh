// flashattn — the epilogue of the portable forward kernel: O (fp32 registers, already normalised) is
// rounded to the element type, staged through shared memory (Q's buffer) so global stores are 16-byte
// vectors of whole rows, and written once with the rows past the sequence's end left alone; lse is
// written by the lane holding each row's first column.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/epilogue_store.cuh"
#include "cuda/common/fragment.cuh"
#include "cuda/sm80/layouts_fwd_sm80.cuh"

namespace flashattn::cuda::sm80 {

template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
struct FwdEpilogueSm80 {
  using Layouts = FwdLayouts<Element, kHeadDim, kHeadDimV, kRegime>;
  static constexpr int kBlockM = Layouts::kBlockM;

  /// acc_o: (MMA, MMA_M, MMA_N) fp32 of the CTA's TiledMma; lse: natural-log lse of the thread's rows in
  /// the order of acc_rowcol; gO: (BLOCK_M, HEAD_DIM_V); lse_out: the block's first lse entry, or null.
  template <class AccO, class GO, int kRows>
  __device__ __forceinline__ static void store(typename Layouts::SharedStorage& smem, const AccO& acc_o,
                                               const float (&lse)[kRows], GO& gO, float* lse_out,
                                               int q_rows) {
    using namespace cute;
    const int tid = threadIdx.x;
    Tensor sO =
        make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutO{});  // (BLOCK_M, HEAD_DIM_V)
    typename Layouts::TiledMma mma;

    Tensor rO = convert_fragment<Element>(acc_o);
    auto smem_copy_o = make_tiled_copy_C(typename Layouts::SmemCopyAtomO{}, mma);
    auto smem_thr = smem_copy_o.get_slice(tid);
    Tensor taccOrO = smem_thr.retile_S(rO);  // (CPY, CPY_M, CPY_N)
    Tensor taccOsO = smem_thr.partition_D(sO);
    __syncthreads();  // every warp is done reading Q from the buffer O is staged in
    copy(smem_copy_o, taccOrO, taccOsO);

    if (lse_out != nullptr) {
      Tensor tOcO =
          mma.get_thread_slice(tid).partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDimV>>{}));
      store_lse_rows(make_tensor(tOcO.data(), acc_rowcol_layout(tOcO.layout())), lse, lse_out, q_rows);
    }
    __syncthreads();  // O is complete in shared memory

    typename Layouts::GmemTiledCopyO gmem_copy;
    auto gmem_thr = gmem_copy.get_thread_slice(tid);
    Tensor tOsO = gmem_thr.partition_S(sO);  // (CPY, CPY_M, CPY_K)
    Tensor tOgO = gmem_thr.partition_D(gO);
    Tensor tOcO = gmem_thr.partition_D(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDimV>>{}));
    store_rows_predicated(gmem_copy, tOsO, tOgO, tOcO, q_rows);
  }
};

}  // namespace flashattn::cuda::sm80
