// flashattn — the first kernel of every CUDA backward: per (query row, head), D = rowsum(dO ∘ O) in fp32 and
// the lse in log2 units into the workspace, and the row's fp32 dQ accumulator cleared. One warp per row:
// lane l reads elements [8l, 8l + 8) of dO and O as 16-byte vectors (HEAD_DIM <= 256 = 32 lanes x 8).
#pragma once

#include <cmath>
#include <cstdint>

#include <cute/tensor.hpp>

#include "cuda/common/bwd_kernel_params.hpp"

namespace flashattn::cuda {

/// Rows and threads of one CTA of the pre- and postprocess kernels (a warp per row, rows strided).
inline constexpr int kBwdRowsPerCta = 64;
inline constexpr int kBwdRowThreads = 128;

/// The (row block, head, batch) of this CTA of a pre- or postprocess grid (one CTA per triple, flattened into
/// x, row blocks fastest) and its sequence's query rows.
struct BwdRowBlock {
  int block;
  int head;
  int batch;
  int seqlen_q;
  __device__ explicit BwdRowBlock(const BackwardParams& p) {
    const int row_blocks = (p.max_seqlen_q + kBwdRowsPerCta - 1) / kBwdRowsPerCta;
    block = static_cast<int>(blockIdx.x % row_blocks);
    head = static_cast<int>(blockIdx.x / row_blocks % p.heads);
    batch = static_cast<int>(blockIdx.x / row_blocks / p.heads);
    seqlen_q = p.seqlen_q(batch);
  }
};

/// Grid: one CTA per (row block, head, batch), flattened into x, row blocks fastest.
template <class Element, int kHeadDim>
__global__ void __launch_bounds__(kBwdRowThreads)
    bwd_preprocess_kernel(const __grid_constant__ BwdKernelParams params) {
  static_assert(kHeadDim % 8 == 0 && kHeadDim <= 256, "a lane holds 8 elements of a row");
  constexpr int kVectors = kHeadDim / 8;
  const BackwardParams& p = params.problem;
  const BwdWorkspace& ws = params.workspace;
  const auto [block, head, batch, seqlen_q] = BwdRowBlock(p);
  const int lane = threadIdx.x % 32;

  for (int row = block * kBwdRowsPerCta + threadIdx.x / 32; row < min(seqlen_q, (block + 1) * kBwdRowsPerCta);
       row += kBwdRowThreads / 32) {
    const std::int64_t q_row = p.q_start(batch) + row;
    float dot = 0.0f;
    if (lane < kVectors) {
      const auto* out = static_cast<const Element*>(p.out) + batch * p.out_strides.batch +
                        q_row * p.out_strides.row + head * p.out_strides.head + lane * 8;
      const auto* dout = static_cast<const Element*>(p.dout) + batch * p.dout_strides.batch +
                         q_row * p.dout_strides.row + head * p.dout_strides.head + lane * 8;
      cute::array_aligned<Element, 8, 16> o, d;
      *reinterpret_cast<uint4*>(o.data()) = *reinterpret_cast<const uint4*>(out);
      *reinterpret_cast<uint4*>(d.data()) = *reinterpret_cast<const uint4*>(dout);
      CUTE_UNROLL
      for (int i = 0; i < 8; ++i) dot += static_cast<float>(o[i]) * static_cast<float>(d[i]);
    }
    CUTE_UNROLL
    for (int offset = 16; offset > 0; offset /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, offset);

    const std::int64_t token = ws.token(p, batch, row);
    float* dq = ws.dq_accum + ws.dq_index(p, token, head);
    for (int i = lane; i < kHeadDim / 4; i += 32) reinterpret_cast<float4*>(dq)[i] = make_float4(0, 0, 0, 0);
    if (lane == 0) {
      const float lse = p.lse[batch * p.lse_batch_stride + head * p.lse_head_stride + q_row];
      ws.lse_log2[ws.stat_index(head, token)] = lse == -INFINITY ? INFINITY : lse * kLog2e;
      ws.dsum[ws.stat_index(head, token)] = dot;
    }
  }
}

}  // namespace flashattn::cuda
