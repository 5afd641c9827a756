// flashattn — the epilogue of the Hopper backward kernel: dK (times the softmax scale) and dV, fp32 in the
// consumer warpgroups' registers, are rounded to the element type and written once, straight from the
// registers, two adjacent columns (4 bytes) per store. Rows up to the sequence's last key row are written
// — keys past seqused_k or seen by no query get zeros — and no row past it.
#pragma once

#include <cutlass/array.h>
#include <cute/tensor.hpp>

#include "cuda/common/fragment.cuh"
#include "cuda/sm90/layouts_bwd_sm90.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
struct BwdEpilogueSm90 {
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  static constexpr int kBlockN = Layouts::kBlockN;

  /// acc_dk, acc_dv: TiledMmadKV fp32 fragments of (BLOCK_N, HEAD_DIM); gdK, gdV: (BLOCK_N, HEAD_DIM)
  /// global tiles whose rows below `valid_rows` are the block's keys. `thread`: index among the consumers.
  template <class AccDK, class AccDV, class GdK, class GdV>
  __device__ __forceinline__ static void store(AccDK& acc_dk, const AccDV& acc_dv, float scale, GdK& gdK,
                                               GdV& gdV, int valid_rows, int thread) {
    using namespace cute;
    static_assert(decltype(size<0, 0>(acc_dk))::value == 2,
                  "a wgmma accumulator's first mode holds 2 adjacent columns of one row");
    typename Layouts::TiledMmadKV mma;
    Tensor tcKV = mma.get_thread_slice(thread).partition_C(
        make_identity_tensor(Shape<Int<kBlockN>, Int<kHeadDim>>{}));  // (row, col) of each value
    CUTE_UNROLL
    for (int i = 0; i < size(acc_dk); ++i) acc_dk(i) *= scale;
    Tensor rdK = convert_fragment<Element>(acc_dk);
    Tensor rdV = convert_fragment<Element>(acc_dv);
    using Pair = cutlass::Array<Element, 2>;
    CUTE_UNROLL
    for (int i = 0; i < size(rdK); i += 2) {
      const int row = get<0>(tcKV(i));
      const int col = get<1>(tcKV(i));
      if (row < valid_rows) {
        *reinterpret_cast<Pair*>(&gdK(row, col)) = *reinterpret_cast<const Pair*>(&rdK(i));
        *reinterpret_cast<Pair*>(&gdV(row, col)) = *reinterpret_cast<const Pair*>(&rdV(i));
      }
    }
  }
};

}  // namespace flashattn::cuda::sm90
