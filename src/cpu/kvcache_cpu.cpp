// flashattn — CPU forward_kvcache: the append (with rotary embedding of the new keys), the rotary
// embedding of the queries, then the CPU forward over the cache, whose key loads follow the page table
// (ForwardParams::kv_row_offset). The CPU runs one split: the split-KV decomposition is a GPU concern.
#include <omp.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "cpu/element_type.hpp"
#include "cpu/work_items.hpp"

namespace flashattn::cpu {
namespace {

/// The rotary tables of a call.
struct Rotary {
  const void* cos;
  const void* sin;
  std::int64_t cos_row_stride;
  std::int64_t sin_row_stride;
  int dim;  ///< R, even.
  bool interleaved;
};

/// dst = src rotated for `position` (fp32 arithmetic, rounded to T): pairs (x_a, x_b) of the first R
/// dimensions, a = i, b = i + R/2 (or a = 2i, b = 2i + 1 when interleaved), become
/// (x_a cos - x_b sin, x_a sin + x_b cos) with the angle of table row `position`, column i; dimensions
/// from R on are copied.
template <class T>
void rotate_row(const T* src, T* dst, int head_dim, const Rotary& rotary, std::int64_t position) {
  const T* cos = static_cast<const T*>(rotary.cos) + position * rotary.cos_row_stride;
  const T* sin = static_cast<const T*>(rotary.sin) + position * rotary.sin_row_stride;
  const int half = rotary.dim / 2;
  for (int i = 0; i < half; ++i) {
    const int a = rotary.interleaved ? 2 * i : i;
    const int b = rotary.interleaved ? 2 * i + 1 : i + half;
    const float x_a = to_float(src[a]);
    const float x_b = to_float(src[b]);
    const float c = to_float(cos[i]);
    const float s = to_float(sin[i]);
    dst[a] = from_float<T>(x_a * c - x_b * s);
    dst[b] = from_float<T>(x_a * s + x_b * c);
  }
  for (int j = rotary.dim; j < head_dim; ++j) dst[j] = src[j];
}

/// Writes the new keys (rotated at positions L + t when rotary is on) and values of every sequence into
/// cache rows L .. L + Sq - 1, L = cache_seqlens[b].
template <class T>
void append(const KVCacheParams& p, const Rotary* rotary, int threads) {
  const std::int64_t rows = std::int64_t{p.batch} * p.seqlen_q_new * p.heads_kv;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t index = 0; index < rows; ++index) {
    const int kvh = static_cast<int>(index % p.heads_kv);
    const int t = static_cast<int>(index / p.heads_kv % p.seqlen_q_new);
    const int b = static_cast<int>(index / p.heads_kv / p.seqlen_q_new);
    const std::int64_t row = std::int64_t{p.cache_seqlens[b]} + t;
    const T* k_src = static_cast<const T*>(p.k_new) + b * p.k_new_strides.batch + t * p.k_new_strides.row +
                     kvh * p.k_new_strides.head;
    const T* v_src = static_cast<const T*>(p.v_new) + b * p.v_new_strides.batch + t * p.v_new_strides.row +
                     kvh * p.v_new_strides.head;
    // The cache tensors are the caller's, written in place (ForwardParams holds them as const).
    T* k_dst = static_cast<T*>(const_cast<void*>(p.k)) + p.kv_row_offset(p.k_strides, b, row) +
               kvh * p.k_strides.head;
    T* v_dst = static_cast<T*>(const_cast<void*>(p.v)) + p.kv_row_offset(p.v_strides, b, row) +
               kvh * p.v_strides.head;
    if (rotary) {
      rotate_row(k_src, k_dst, p.head_dim, *rotary, row);
    } else {
      for (int c = 0; c < p.head_dim; ++c) k_dst[c] = k_src[c];
    }
    for (int c = 0; c < p.head_dim_v; ++c) v_dst[c] = v_src[c];
  }
}

/// The queries rotated at their positions (KVCacheParams::query_position), as a contiguous
/// (B, Sq, H, D) tensor.
template <class T>
std::vector<T> rotated_queries(const KVCacheParams& p, const Rotary& rotary, int threads) {
  const std::int64_t rows = std::int64_t{p.batch} * p.seqlen_q_new * p.heads;
  std::vector<T> q(static_cast<std::size_t>(rows) * p.head_dim);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t index = 0; index < rows; ++index) {
    const int h = static_cast<int>(index % p.heads);
    const int t = static_cast<int>(index / p.heads % p.seqlen_q_new);
    const int b = static_cast<int>(index / p.heads / p.seqlen_q_new);
    const T* src =
        static_cast<const T*>(p.q) + b * p.q_strides.batch + t * p.q_strides.row + h * p.q_strides.head;
    rotate_row(src, q.data() + index * p.head_dim, p.head_dim, rotary, p.query_position(b, t));
  }
  return q;
}

template <class T>
Status run_kvcache(const KVCacheParams& p, int threads, RunInfo& info) {
  const Rotary rotary{p.rotary_cos, p.rotary_sin,        p.rotary_cos_row_stride, p.rotary_sin_row_stride,
                      p.rotary_dim, p.rotary_interleaved};
  const bool rotate = p.rotary_cos != nullptr;
  if (p.k_new) append<T>(p, rotate ? &rotary : nullptr, threads);
  ForwardParams attention = p;
  std::vector<T> q_rotated;
  if (rotate) {
    q_rotated = rotated_queries<T>(p, rotary, threads);
    attention.q = q_rotated.data();
    const std::int64_t row = std::int64_t{p.heads} * p.head_dim;
    attention.q_strides = {row * p.seqlen_q_new, row, p.head_dim};
  }
  return forward(attention, threads, info);
}

}  // namespace

Status forward_kvcache(const KVCacheParams& params, int num_threads, RunInfo& info) {
  const int threads = resolve_threads(num_threads);
  const Status status = with_element_type(
      params.dtype, [&](auto element) { return run_kvcache<decltype(element)>(params, threads, info); });
  if (!status.ok()) return status;
  info.kernel = std::string("kvcache_cpu_") + to_string(params.dtype);
  info.num_splits = 1;
  return status;
}

}  // namespace flashattn::cpu
