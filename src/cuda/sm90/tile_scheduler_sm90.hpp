// flashattn — which (query tile, head, batch) each CTA of the Hopper forward computes.
//
// Non-persistent for now: one CTA per tile, flattened into grid x (y and z would cap B and H at 65535).
// Query tiles vary fastest, so the CTAs that read one head's K and V run together and share them in L2;
// they are visited last tile first, so under a causal mask the longest CTAs start first. A persistent
// scheduler (one CTA per SM pulling tiles, longest first) replaces this behind the same two functions.
#pragma once

#include <cstdint>

#include "cuda/common/fwd_kernel_params.hpp"

namespace flashattn::cuda::sm90 {

struct SingleTileScheduler {
  struct Tile {
    int m_block;  ///< Query tile: rows [m_block * BLOCK_M, (m_block + 1) * BLOCK_M) of the sequence.
    int head;
    int batch;
  };

  /// CTAs to launch: one per tile (callers check that the count fits the grid's x).
  static std::int64_t grid_size(const FwdKernelParams& params) {
    return std::int64_t{params.num_m_blocks} * params.problem.heads * params.problem.batch;
  }

  __device__ static Tile tile(const FwdKernelParams& params) {
    const int per_head = params.num_m_blocks;
    const int batch_head = static_cast<int>(blockIdx.x / per_head);
    return {per_head - 1 - static_cast<int>(blockIdx.x % per_head), batch_head % params.problem.heads,
            batch_head / params.problem.heads};
  }
};

}  // namespace flashattn::cuda::sm90
