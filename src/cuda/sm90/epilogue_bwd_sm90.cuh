// flashattn — the epilogue of the Hopper backward kernel: dK (times the softmax scale) and dV, fp32 in the
// consumer warpgroups' registers, are rounded to the element type, staged with stmatrix in the dS buffer
// where it holds both, else in the K and V buffers (read by no product any more once both consumer
// warpgroups are past their last step), and written
// once with 16-byte stores of whole rows. Rows up to the sequence's last key row are written — keys past
// seqused_k or seen by no query get zeros — and no row past it.
//
// Why staged: straight from the accumulators a store covers two adjacent columns (4 bytes) of 8 rows per
// warp, half of each 32-byte sector, 64 such stores per thread and tensor at D = 128. At short sequences
// that store stream was the kernel's largest stall (23% of the samples at B 32, S 512, D 128: docs/PERF.md);
// staged, a warp's store writes two whole 256-byte rows.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/epilogue_store.cuh"
#include "cuda/common/fragment.cuh"
#include "cuda/sm90/layouts_bwd_sm90.cuh"
#include "cuda/sm90/mainloop_bwd_sm90_tma_wgmma.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
struct BwdEpilogueSm90 {
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  static constexpr int kBlockN = Layouts::kBlockN;
  static constexpr int kConsumerThreads = Layouts::kConsumerThreads;
  /// 16-byte chunks per row; the consumer threads cover kConsumerThreads / kChunksPerRow rows per copy.
  static constexpr int kChunksPerRow = kHeadDim / 8;
  static_assert(kConsumerThreads % kChunksPerRow == 0 && kBlockN % (kConsumerThreads / kChunksPerRow) == 0,
                "the consumer threads tile the rows of dK and dV in 16-byte chunks");
  using GmemTiledCopy = decltype(cute::make_tiled_copy(
      cute::Copy_Atom<cute::UniversalCopy<cute::uint128_t>, Element>{},
      cute::Layout<cute::Shape<cute::Int<kConsumerThreads / kChunksPerRow>, cute::Int<kChunksPerRow>>,
                   cute::Stride<cute::Int<kChunksPerRow>, cute::_1>>{},
      cute::Layout<cute::Shape<cute::_1, cute::_8>>{}));

  /// acc_dk, acc_dv: TiledMmadKV fp32 fragments of (BLOCK_N, HEAD_DIM) of consumer thread `thread`, whose
  /// warpgroup has finished its main loop; gdK, gdV: (BLOCK_N, HEAD_DIM) global tiles whose rows below
  /// `valid_rows` are the block's keys. Every consumer thread calls it.
  template <class AccDK, class AccDV, class GdK, class GdV>
  __device__ __forceinline__ static void store(typename Layouts::SharedStorage& smem, AccDK& acc_dk,
                                               const AccDV& acc_dv, float scale, GdK& gdK, GdV& gdV,
                                               int valid_rows, int thread) {
    using namespace cute;
    CUTE_UNROLL
    for (int i = 0; i < size(acc_dk); ++i) acc_dk(i) *= scale;
    Tensor rdK = convert_fragment<Element>(acc_dk);
    Tensor rdV = convert_fragment<Element>(acc_dv);
    Tensor sdK = make_tensor(make_smem_ptr(staging(smem, 0)), typename Layouts::SmemLayoutK{});  // (N, D)
    Tensor sdV = make_tensor(make_smem_ptr(staging(smem, 1)), typename Layouts::SmemLayoutK{});

    // The staging buffers (dS, read by both warpgroups' last dQ product; or K, read there too, and, split by
    // head dim, V by both warpgroups' dPᵀ) are free once every consumer is past its last step.
    sync_consumers();
    typename Layouts::TiledMmadKV mma;
    auto smem_copy = make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, Element>{}, mma);
    auto smem_thr = smem_copy.get_slice(thread);
    copy(smem_copy, smem_thr.retile_S(rdK), smem_thr.partition_D(sdK));
    copy(smem_copy, smem_thr.retile_S(rdV), smem_thr.partition_D(sdV));
    sync_consumers();  // every row of both tiles is in shared memory

    store_dkdv_rows_predicated(GmemTiledCopy{}, thread, sdK, sdV, gdK, gdV, valid_rows);
  }

 private:
  /// Where dK (`tile` 0) and dV (1) are staged: the dS buffer's halves, or the K and V buffers
  /// (Layouts::kEpilogueInDs).
  __device__ static Element* staging(typename Layouts::SharedStorage& smem, int tile) {
    if constexpr (Layouts::kEpilogueInDs) {
      return smem.ds.data() + tile * cute::cosize_v<typename Layouts::SmemLayoutK>;
    } else {
      return tile == 0 ? smem.k.data() : smem.v.data();
    }
  }
  __device__ static void sync_consumers() {
    cutlass::arch::NamedBarrier::sync(kConsumerThreads, static_cast<std::uint32_t>(BwdBarrier::kConsumers));
  }
};

}  // namespace flashattn::cuda::sm90
