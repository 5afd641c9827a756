// flashattn — the last kernel of every CUDA backward: dq = scale * (the fp32 dQ accumulator), rounded to
// the element type and written with dq's strides. Only rows of a sequence are written (rows of a varlen q
// tensor past cu_seqlens_q[B] belong to none). One warp per row, 8 elements per lane.
#pragma once

#include <cstdint>

#include <cutlass/numeric_conversion.h>
#include <cute/tensor.hpp>

#include "cuda/common/bwd_kernel_params.hpp"
#include "cuda/common/bwd_preprocess.cuh"

namespace flashattn::cuda {

/// Grid as bwd_preprocess_kernel's.
template <class Element, int kHeadDim>
__global__ void __launch_bounds__(kBwdRowThreads)
    bwd_postprocess_kernel(const __grid_constant__ BwdKernelParams params) {
  constexpr int kVectors = kHeadDim / 8;
  const BackwardParams& p = params.problem;
  const BwdWorkspace& ws = params.workspace;
  const auto [block, head, batch, seqlen_q] = BwdRowBlock(p);
  const int lane = threadIdx.x % 32;
  if (lane >= kVectors) return;

  cutlass::NumericArrayConverter<Element, float, 8> convert;
  for (int row = block * kBwdRowsPerCta + threadIdx.x / 32; row < min(seqlen_q, (block + 1) * kBwdRowsPerCta);
       row += kBwdRowThreads / 32) {
    const float4* acc =
        reinterpret_cast<const float4*>(ws.dq_accum + ws.dq_index(p, ws.token(p, batch, row), head)) +
        2 * lane;
    cutlass::Array<float, 8> values;
    const float4 lo = acc[0], hi = acc[1];
    values[0] = lo.x, values[1] = lo.y, values[2] = lo.z, values[3] = lo.w;
    values[4] = hi.x, values[5] = hi.y, values[6] = hi.z, values[7] = hi.w;
    CUTE_UNROLL
    for (int i = 0; i < 8; ++i) values[i] *= p.scale;
    auto* dq = static_cast<Element*>(p.dq) + batch * p.dq_strides.batch +
               (p.q_start(batch) + row) * p.dq_strides.row + head * p.dq_strides.head + lane * 8;
    cutlass::AlignedArray<Element, 8> rounded;
    static_cast<cutlass::Array<Element, 8>&>(rounded) = convert(values);
    *reinterpret_cast<uint4*>(dq) = *reinterpret_cast<const uint4*>(rounded.data());
  }
}

}  // namespace flashattn::cuda
