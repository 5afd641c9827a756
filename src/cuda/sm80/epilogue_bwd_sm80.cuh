// flashattn — the epilogue of the portable backward kernel: dK (times the softmax scale) and dV, fp32 in
// registers, are rounded to the element type, staged through shared memory (K's and V's buffers) so global
// stores are 16-byte vectors of whole rows, and written once. Rows up to the sequence's last key row are
// written — keys past seqused_k or seen by no query get zeros — and no row past it.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/epilogue_store.cuh"
#include "cuda/common/fragment.cuh"
#include "cuda/sm80/layouts_bwd_sm80.cuh"

namespace flashattn::cuda::sm80 {

template <class Element, int kHeadDim, int kHeadDimV>
struct BwdEpilogueSm80 {
  using Layouts = BwdLayouts<Element, kHeadDim, kHeadDimV>;

  /// acc_dk, acc_dv: (MMA, MMA_N, MMA_D) and (MMA, MMA_N, MMA_Dv) fp32 of TiledMmadKV; gdK, gdV: (BLOCK_N,
  /// HEAD_DIM) and (BLOCK_N, HEAD_DIM_V). Every warp must be done with K and V in shared memory.
  template <class AccDK, class AccDV, class GdK, class GdV>
  __device__ __forceinline__ static void store(typename Layouts::SharedStorage& smem, AccDK& acc_dk,
                                               const AccDV& acc_dv, float scale, GdK& gdK, GdV& gdV,
                                               int valid_rows) {
    using namespace cute;
    const int tid = threadIdx.x;
    Tensor sdK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});  // (N, D)
    Tensor sdV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutV{});  // (N, Dv)
    typename Layouts::TiledMmadKV mma;

    CUTE_UNROLL
    for (int i = 0; i < size(acc_dk); ++i) acc_dk(i) *= scale;
    Tensor rdK = convert_fragment<Element>(acc_dk);
    Tensor rdV = convert_fragment<Element>(acc_dv);
    auto smem_copy = make_tiled_copy_C(typename Layouts::SmemCopyAtomC{}, mma);
    auto smem_thr = smem_copy.get_slice(tid);
    copy(smem_copy, smem_thr.retile_S(rdK), smem_thr.partition_D(sdK));
    copy(smem_copy, smem_thr.retile_S(rdV), smem_thr.partition_D(sdV));
    __syncthreads();  // dK and dV are complete in shared memory

    if constexpr (kHeadDimV == kHeadDim) {
      store_dkdv_rows_predicated(typename Layouts::GmemTiledCopyStore{}, tid, sdK, sdV, gdK, gdV, valid_rows);
    } else {
      store_tile_rows_predicated(typename Layouts::GmemTiledCopyStore{}, tid, sdK, gdK, valid_rows);
      store_tile_rows_predicated(typename Layouts::GmemTiledCopyStoreV{}, tid, sdV, gdV, valid_rows);
    }
  }
};

}  // namespace flashattn::cuda::sm80
