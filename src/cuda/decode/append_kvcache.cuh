// flashattn — the step before the decode kernel: k_new / v_new written into the cache in place at rows
// L .. L + Sq - 1 (L = cache_seqlens[b], through the page table or cache_batch_idx), k_new rotated when
// rotary tables are given, and the queries rotated into the workspace. One warp per row; the work is
// Sq rows per sequence, negligible next to reading the cache.
//
// Rotation (kvcache.hpp): pairs (x_a, x_b) become (x_a c - x_b s, x_a s + x_b c) in fp32 with every product
// and sum rounded on its own (no FMA contraction: __fmul_rn / __fadd_rn / __fsub_rn), then rounded to the
// dtype to nearest even: the textbook fp32 evaluation, reproducible on any host.
#pragma once

#include <cstdint>

#include "core/params.hpp"

namespace flashattn::cuda::decode {

struct AppendParams {
  KVCacheParams problem;
  void* q_rotated = nullptr;     ///< (B, Sq, H, D) contiguous; null without rotary embedding.
  std::int64_t append_rows = 0;  ///< B * Sq * Hk rows of k_new / v_new (0 when nothing is appended).
  std::int64_t query_rows = 0;   ///< B * Sq * H rows of q to rotate (0 without rotary embedding).
};

/// dst[0 .. D) = src rotated at table row `position` (the lanes of a warp share the row).
template <class Element>
__device__ __forceinline__ void rotate_row_warp(const KVCacheParams& p, const Element* src, Element* dst,
                                                std::int64_t position, int lane) {
  const Element* cos = static_cast<const Element*>(p.rotary_cos) + position * p.rotary_cos_row_stride;
  const Element* sin = static_cast<const Element*>(p.rotary_sin) + position * p.rotary_sin_row_stride;
  const int half = p.rotary_dim / 2;
  for (int i = lane; i < half; i += 32) {
    const int a = p.rotary_interleaved ? 2 * i : i;
    const int b = p.rotary_interleaved ? 2 * i + 1 : i + half;
    const float x_a = static_cast<float>(src[a]);
    const float x_b = static_cast<float>(src[b]);
    const float c = static_cast<float>(cos[i]);
    const float s = static_cast<float>(sin[i]);
    dst[a] = static_cast<Element>(__fsub_rn(__fmul_rn(x_a, c), __fmul_rn(x_b, s)));
    dst[b] = static_cast<Element>(__fadd_rn(__fmul_rn(x_a, s), __fmul_rn(x_b, c)));
  }
  for (int d = p.rotary_dim + lane; d < p.head_dim; d += 32) dst[d] = src[d];
}

template <class Element>
__device__ __forceinline__ void copy_row_warp(const Element* src, Element* dst, int count, int lane) {
  for (int d = lane; d < count; d += 32) dst[d] = src[d];
}

/// Rows [0, append_rows) append (b, t, kv head), rows [append_rows, append_rows + query_rows) rotate
/// (b, t, head) of q.
template <class Element, int kWarps>
__global__ void __launch_bounds__(kWarps * 32)
    append_kvcache_kernel(const __grid_constant__ AppendParams params) {
  const KVCacheParams& p = params.problem;
  const std::int64_t row = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row < params.append_rows) {
    const int head_kv = static_cast<int>(row % p.heads_kv);
    const int t = static_cast<int>(row / p.heads_kv % p.seqlen_q_new);
    const int b = static_cast<int>(row / p.heads_kv / p.seqlen_q_new);
    const std::int64_t cache_row = std::int64_t{p.cache_seqlens[b]} + t;
    const Element* k_src = static_cast<const Element*>(p.k_new) + b * p.k_new_strides.batch +
                           t * p.k_new_strides.row + head_kv * p.k_new_strides.head;
    const Element* v_src = static_cast<const Element*>(p.v_new) + b * p.v_new_strides.batch +
                           t * p.v_new_strides.row + head_kv * p.v_new_strides.head;
    // The cache is the caller's, written in place (ForwardParams holds it as const).
    Element* k_dst = static_cast<Element*>(const_cast<void*>(p.k)) +
                     p.kv_row_offset(p.k_strides, b, cache_row) + head_kv * p.k_strides.head;
    Element* v_dst = static_cast<Element*>(const_cast<void*>(p.v)) +
                     p.kv_row_offset(p.v_strides, b, cache_row) + head_kv * p.v_strides.head;
    if (p.rotary_cos != nullptr) {
      rotate_row_warp(p, k_src, k_dst, cache_row, lane);
    } else {
      copy_row_warp(k_src, k_dst, p.head_dim, lane);
    }
    copy_row_warp(v_src, v_dst, p.head_dim_v, lane);
  } else if (row < params.append_rows + params.query_rows) {
    const std::int64_t q_row = row - params.append_rows;
    const int head = static_cast<int>(q_row % p.heads);
    const int t = static_cast<int>(q_row / p.heads % p.seqlen_q_new);
    const int b = static_cast<int>(q_row / p.heads / p.seqlen_q_new);
    const Element* src = static_cast<const Element*>(p.q) + b * p.q_strides.batch + t * p.q_strides.row +
                         head * p.q_strides.head;
    Element* dst = static_cast<Element*>(params.q_rotated) + q_row * p.head_dim;
    rotate_row_warp(p, src, dst, p.query_position(b, t), lane);
  }
}

}  // namespace flashattn::cuda::decode
