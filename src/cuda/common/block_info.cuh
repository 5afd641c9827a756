// flashattn — what one CTA of a forward kernel needs to know about its (batch, head): sequence lengths and
// the 64-bit element offsets of its rows in q / k / v / out / lse. Dense and varlen differ only inside
// ForwardParams' accessors (seqlen_q, q_start, ...), so kernels never branch on the layout.
#pragma once

#include <cstdint>

#include "core/params.hpp"

namespace flashattn::cuda {

struct BlockInfo {
  int batch;
  int head;
  int head_kv;
  int seqlen_q;  ///< Query rows of this sequence.
  int seqlen_k;  ///< Keys attended by this sequence (seqused_k when given).

  __device__ BlockInfo(const ForwardParams& p, int b, int h)
      : batch(b), head(h), head_kv(p.kv_head(h)), seqlen_q(p.seqlen_q(b)), seqlen_k(p.seqlen_k(b)) {}

  /// Element offset of query row `row` (0-based within the sequence) of this head in q.
  __device__ std::int64_t q_offset(const ForwardParams& p, int row) const {
    return batch * p.q_strides.batch + (p.q_start(batch) + row) * p.q_strides.row + head * p.q_strides.head;
  }
  /// Element offset of key row 0 of this head's kv head in k.
  __device__ std::int64_t k_offset(const ForwardParams& p) const {
    return batch * p.k_strides.batch + p.k_start(batch) * p.k_strides.row + head_kv * p.k_strides.head;
  }
  /// Element offset of key row 0 in v.
  __device__ std::int64_t v_offset(const ForwardParams& p) const {
    return batch * p.v_strides.batch + p.k_start(batch) * p.v_strides.row + head_kv * p.v_strides.head;
  }
  /// Element offset of output row `row` in out.
  __device__ std::int64_t out_offset(const ForwardParams& p, int row) const {
    return batch * p.out_strides.batch + (p.q_start(batch) + row) * p.out_strides.row +
           head * p.out_strides.head;
  }
  /// Element offset of lse entry `row` (tokens are contiguous within a head).
  __device__ std::int64_t lse_offset(const ForwardParams& p, int row) const {
    return batch * p.lse_batch_stride + head * p.lse_head_stride + p.q_start(batch) + row;
  }
};

}  // namespace flashattn::cuda
