// flashattn — the first kernel of every CUDA backward: per (query row, head), D = rowsum(dO ∘ O) in fp32 and
// the lse in log2 units into the workspace, and the row's fp32 dQ accumulator cleared. A group of lanes per
// row (BwdRowLanes: lane l of the group reads elements [8l, 8l + 8) of dO and O as 16-byte vectors), several
// rows per warp at once.
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

/// How a warp of the pre- and postprocess spreads its rows over its lanes: a group of kLanes lanes per row
/// (the power of two at or above the row's kVectors 16-byte vectors), kRows rows side by side, and of its
/// kGroups such row groups kBatch at a time, every load of a batch issued before the first is used. Both
/// kernels only move bytes, so what sets their speed is the bytes each warp keeps in flight: one row at a
/// time, a warp at D 64 used 8 of its lanes and had 256 bytes in flight; now 4 KB at every head dim.
template <int kHeadDim>
struct BwdRowLanes {
  static_assert(kHeadDim % 8 == 0 && kHeadDim <= 256, "a lane holds 8 elements of a row");
  static constexpr int kVectors = kHeadDim / 8;
  static constexpr int kLanes = kVectors <= 8 ? 8 : kVectors <= 16 ? 16 : 32;
  static constexpr int kRows = 32 / kLanes;
  static constexpr int kRowsPerWarp = kBwdRowsPerCta / (kBwdRowThreads / 32);
  static constexpr int kGroups = kRowsPerWarp / kRows;
  static constexpr int kBatch = kGroups < 4 ? kGroups : 4;
  static_assert(kGroups % kBatch == 0, "a warp's row groups are whole batches");

  int vector;     ///< The 16-byte vector of its row this lane reads (none when >= kVectors).
  int warp_row0;  ///< The warp's first row.
  int lane_row0;  ///< This lane's row in the warp's first row group.
  __device__ explicit BwdRowLanes(int block)
      : vector(static_cast<int>(threadIdx.x) % kLanes),
        warp_row0(block * kBwdRowsPerCta + static_cast<int>(threadIdx.x) / 32 * kRowsPerWarp),
        lane_row0(warp_row0 + static_cast<int>(threadIdx.x) % 32 / kLanes) {}
  /// This lane's row in row group `group`.
  __device__ int row(int group) const { return lane_row0 + group * kRows; }
  /// Whether row group `group` holds no row below `row_end` (the same for the whole warp).
  __device__ bool past(int group, int row_end) const { return warp_row0 + group * kRows >= row_end; }
};

/// Grid: one CTA per (row block, head, batch), flattened into x, row blocks fastest. The lanes spread the
/// rows of O and dO (kHeadDimV wide); the same lanes clear the row's dQ accumulator (kHeadDim wide).
template <class Element, int kHeadDim, int kHeadDimV = kHeadDim>
__global__ void __launch_bounds__(kBwdRowThreads)
    bwd_preprocess_kernel(const __grid_constant__ BwdKernelParams params) {
  using Lanes = BwdRowLanes<kHeadDimV>;
  const BackwardParams& p = params.problem;
  const BwdWorkspace& ws = params.workspace;
  const auto [block, head, batch, seqlen_q] = BwdRowBlock(p);
  const Lanes lanes(block);
  const int row_end = min(seqlen_q, (block + 1) * kBwdRowsPerCta);
  // Read once: a varlen sequence's start would otherwise be reloaded for every row, behind the stores.
  const std::int64_t q0 = p.q_start(batch);
  const std::int64_t token0 = ws.token(p, batch, 0);
  const auto* out = static_cast<const Element*>(p.out) + batch * p.out_strides.batch +
                    (q0 + lanes.lane_row0) * p.out_strides.row + head * p.out_strides.head + lanes.vector * 8;
  const auto* dout = static_cast<const Element*>(p.dout) + batch * p.dout_strides.batch +
                     (q0 + lanes.lane_row0) * p.dout_strides.row + head * p.dout_strides.head +
                     lanes.vector * 8;
  const float* lse_in = p.lse + batch * p.lse_batch_stride + head * p.lse_head_stride + q0;

  for (int group0 = 0; group0 < Lanes::kGroups && !lanes.past(group0, row_end); group0 += Lanes::kBatch) {
    // Every load of the batch first (the row's lse too, which its first lane stores with D).
    cute::array_aligned<Element, 8, 16> o[Lanes::kBatch], d[Lanes::kBatch];
    float lse[Lanes::kBatch];
    CUTE_UNROLL
    for (int i = 0; i < Lanes::kBatch; ++i) {
      const int row = lanes.row(group0 + i);
      const int offset = (group0 + i) * Lanes::kRows;  // rows past lane_row0
      if (row < row_end && lanes.vector < Lanes::kVectors) {
        *reinterpret_cast<uint4*>(o[i].data()) =
            *reinterpret_cast<const uint4*>(out + offset * p.out_strides.row);
        *reinterpret_cast<uint4*>(d[i].data()) =
            *reinterpret_cast<const uint4*>(dout + offset * p.dout_strides.row);
      } else {
        *reinterpret_cast<uint4*>(o[i].data()) = make_uint4(0u, 0u, 0u, 0u);
        *reinterpret_cast<uint4*>(d[i].data()) = make_uint4(0u, 0u, 0u, 0u);
      }
      lse[i] = row < row_end && lanes.vector == 0 ? lse_in[row] : 0.0f;
    }
    CUTE_UNROLL
    for (int i = 0; i < Lanes::kBatch; ++i) {
      float dot = 0.0f;
      CUTE_UNROLL
      for (int e = 0; e < 8; ++e) dot += static_cast<float>(o[i][e]) * static_cast<float>(d[i][e]);
      CUTE_UNROLL
      for (int offset = Lanes::kLanes / 2; offset > 0; offset /= 2) {
        dot += __shfl_xor_sync(0xffffffffu, dot, offset);  // within the row's lane group
      }
      const int row = lanes.row(group0 + i);
      if (row >= row_end) continue;
      const std::int64_t token = token0 + row;
      float4* dq = reinterpret_cast<float4*>(ws.dq_accum + ws.dq_index(p, token, head));
      constexpr int kFloat4s = kHeadDim / 4;  // of the row's accumulator
      CUTE_UNROLL
      for (int j = 0; j < (kFloat4s + Lanes::kLanes - 1) / Lanes::kLanes; ++j) {
        const int v = lanes.vector + j * Lanes::kLanes;
        if (v < kFloat4s) dq[v] = make_float4(0, 0, 0, 0);
      }
      if (lanes.vector == 0) {
        ws.lse_log2[ws.stat_index(head, token)] = lse[i] == -INFINITY ? INFINITY : lse[i] * kLog2e;
        ws.dsum[ws.stat_index(head, token)] = dot;
      }
    }
  }
}

}  // namespace flashattn::cuda
