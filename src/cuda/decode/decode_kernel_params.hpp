// flashattn — the decode problem as the CUDA decode kernels take it (a __grid_constant__ struct): the
// attention over the cache as forward params (q already rotated when rotary embedding is on), the GQA
// packing, the splits and the workspace pointers, all fixed on the host (STYLE.md #3).
#pragma once

#include <cstdint>

#include <cutlass/fast_math.h>

#include "core/params.hpp"
#include "cuda/common/fwd_kernel_params.hpp"

namespace flashattn::cuda::decode {

/// Packed query rows: row r of a (batch, kv head) is new token t = r / group of query head
/// hk * group + r % group, so the group's heads of one token are adjacent and share every causal bound.
struct DecodeKernelParams {
  FwdKernelParams fwd;  ///< fwd.problem: attention over the cache, seqlen_k(b) = cache_seqlens[b] + added.
  int group = 1;        ///< H / Hk.
  int seqlen_q = 0;     ///< Sq: new tokens per sequence.
  int rows = 0;         ///< Sq * group: packed rows per (batch, kv head).
  int num_splits = 1;
  /// With num_splits > 1: per split s and query row index i = (b * H + h) * Sq + t, the split's lse at
  /// lse_partial[s * partial_rows + i] and O (normalised, Dv floats) at o_partial[(s * partial_rows + i) *
  /// Dv]. Null with one split: the kernel writes out and lse itself.
  float* lse_partial = nullptr;
  float* o_partial = nullptr;
  std::int64_t partial_rows = 0;  ///< B * H * Sq.
  /// sm90 and newer, 1 < num_splits <= kMaxClusterSplits: the splits of one (batch, kv head, row block) run
  /// as one thread-block cluster and combine through distributed shared memory (cluster_combine_decode.cuh):
  /// no partials in global memory, no combine kernel.
  bool cluster_combine = false;
  /// The cache's K and V rows are copied with an evict-first L2 policy (core::decode_cache_evict_first).
  bool cache_evict_first = false;
  /// Divides key rows by fwd.problem.page_size with a multiply and a shift (the multiplier computed on the
  /// host: a 32-bit divide would cost every 16-byte copy of a paged cache some 25 instructions).
  cutlass::FastDivmod page_divmod;
  /// Divide by group, num_splits, the row-block count ceil(rows / 16) (needed only as a divisor) and Hk the
  /// same way: the kernel's index arithmetic runs once per CTA, cold in the instruction cache, where a
  /// 32-bit divide is some 20 instructions fetched from L2.
  cutlass::FastDivmod group_divmod;
  cutlass::FastDivmod splits_divmod;
  cutlass::FastDivmod row_blocks_divmod;
  cutlass::FastDivmod heads_kv_divmod;

  /// Packed row `row` (>= 0) is new token `token` of query head hk * group + `head_in_group`.
  CUTLASS_HOST_DEVICE void token_and_head(int row, int& token, int& head_in_group) const {
    group_divmod(token, head_in_group, row);
  }
};

}  // namespace flashattn::cuda::decode
