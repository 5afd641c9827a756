// flashattn — where a packed decode row's results go: packed row r of a (batch, kv head) is new token
// r / group of query head hk * group + r % group (decode_kernel_params.hpp); its O goes to out in the
// dtype, 8 columns (one 16-byte store) at a time, and its lse to lse when the caller asked for it.
#pragma once

#include <cutlass/array.h>

#include "cuda/decode/decode_kernel_params.hpp"

namespace flashattn::cuda::decode {

template <class Element, int kHeadDim>
struct DecodeOutput {
  static constexpr int kChunksPerRow = kHeadDim / 8;  ///< 8-column chunks of a row.

  /// Columns [col, col + 8) of packed row `row` of (batch, head_kv).
  __device__ __forceinline__ static void store_chunk(const DecodeKernelParams& params, int batch, int head_kv,
                                                     int row, int col, const float (&o)[8]) {
    const ForwardParams& p = params.fwd.problem;
    int token, head_in_group;
    params.token_and_head(row, token, head_in_group);
    const int head = head_kv * params.group + head_in_group;
    cutlass::Array<Element, 8> out;
    CUTLASS_PRAGMA_UNROLL
    for (int j = 0; j < 8; ++j) out[j] = static_cast<Element>(o[j]);
    Element* dst = static_cast<Element*>(p.out) + batch * p.out_strides.batch + token * p.out_strides.row +
                   head * p.out_strides.head + col;
    *reinterpret_cast<cutlass::Array<Element, 8>*>(dst) = out;
  }

  /// The lse of packed row `row` of (batch, head_kv), if the caller asked for lse.
  __device__ __forceinline__ static void store_lse(const DecodeKernelParams& params, int batch, int head_kv,
                                                   int row, float lse) {
    const ForwardParams& p = params.fwd.problem;
    if (p.lse == nullptr) return;
    int token, head_in_group;
    params.token_and_head(row, token, head_in_group);
    const int head = head_kv * params.group + head_in_group;
    p.lse[batch * p.lse_batch_stride + head * p.lse_head_stride + token] = lse;
  }
};

}  // namespace flashattn::cuda::decode
