// flashattn — the last kernel of every CUDA backward: dq = scale * (the fp32 dQ accumulator), rounded to
// the element type and written with dq's strides. Only rows of a sequence are written (rows of a varlen q
// tensor past cu_seqlens_q[B] belong to none). Rows spread over the lanes as in the preprocess (BwdRowLanes),
// 8 elements per lane.
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
  using Lanes = BwdRowLanes<kHeadDim>;
  const BackwardParams& p = params.problem;
  const BwdWorkspace& ws = params.workspace;
  const auto [block, head, batch, seqlen_q] = BwdRowBlock(p);
  const Lanes lanes(block);
  if (lanes.vector >= Lanes::kVectors) return;
  const int row_end = min(seqlen_q, (block + 1) * kBwdRowsPerCta);
  const std::int64_t token0 = ws.token(p, batch, 0);  // read once (varlen: a load)
  auto* dq = static_cast<Element*>(p.dq) + batch * p.dq_strides.batch +
             (p.q_start(batch) + lanes.lane_row0) * p.dq_strides.row + head * p.dq_strides.head +
             lanes.vector * 8;

  cutlass::NumericArrayConverter<Element, float, 8> convert;
  for (int group0 = 0; group0 < Lanes::kGroups && !lanes.past(group0, row_end); group0 += Lanes::kBatch) {
    float4 lo[Lanes::kBatch], hi[Lanes::kBatch];
    CUTE_UNROLL
    for (int i = 0; i < Lanes::kBatch; ++i) {
      const int row = lanes.row(group0 + i);
      if (row < row_end) {
        const float4* acc =
            reinterpret_cast<const float4*>(ws.dq_accum + ws.dq_index(p, token0 + row, head)) +
            2 * lanes.vector;
        lo[i] = acc[0];
        hi[i] = acc[1];
      }
    }
    CUTE_UNROLL
    for (int i = 0; i < Lanes::kBatch; ++i) {
      if (lanes.row(group0 + i) >= row_end) continue;
      cutlass::Array<float, 8> values;
      values[0] = lo[i].x, values[1] = lo[i].y, values[2] = lo[i].z, values[3] = lo[i].w;
      values[4] = hi[i].x, values[5] = hi[i].y, values[6] = hi[i].z, values[7] = hi[i].w;
      CUTE_UNROLL
      for (int e = 0; e < 8; ++e) values[e] *= p.scale;
      cutlass::AlignedArray<Element, 8> rounded;
      static_cast<cutlass::Array<Element, 8>&>(rounded) = convert(values);
      *reinterpret_cast<uint4*>(dq + std::int64_t{(group0 + i) * Lanes::kRows} * p.dq_strides.row) =
          *reinterpret_cast<const uint4*>(rounded.data());
    }
  }
}

}  // namespace flashattn::cuda
