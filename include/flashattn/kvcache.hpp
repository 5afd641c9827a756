// flashattn — attention over a KV cache, for decoding and chunked prefill (flash-attn's
// flash_attn_with_kvcache).
//
// Per sequence b, with L = cache_seqlens[b] tokens already in the cache and Sq new query tokens:
//   1. when k_new / v_new are given, their Sq rows are written into the cache in place, at token rows
//      L .. L + Sq - 1 of sequence b (k_new rotated first when rotary tables are given);
//   2. q attends to the sequence's first Sk keys of the cache, Sk = L + Sq when appending and L otherwise,
//      with every option of forward() (attention.hpp); causal and windows are bottom-right aligned, so new
//      token i sees the cache and the new tokens up to itself.
// Rotary embedding (rotary_cos / rotary_sin given, (S_rot, R / 2) with R = rotary_dim <= D, R even): the
// first R dimensions of a row at position p are rotated by the angles of table row p, in pairs (x_i,
// x_{i + R/2}) or, with rotary_interleaved, (x_{2i}, x_{2i+1}); the other dimensions are unchanged. The new
// keys sit at positions L + i; the queries at L + i under a causal or windowed mask, and all at L
// otherwise (flash-attn's convention). Rotation is computed in fp32, each product and sum rounded (no fused
// multiply-add, so every backend gets the same bits), and rounded to the element type.
//
// Cache layouts (strides in elements, last dimension contiguous):
//   dense: k_cache (B_cache, S_max, Hk, D), v_cache (B_cache, S_max, Hk, Dv); sequence b uses cache entry
//          cache_batch_idx[b] (default b).
//   paged: k_cache (num_pages, page_size, Hk, D), v_cache (num_pages, page_size, Hk, Dv), any page_size
//          >= 1; token row t of sequence b lives in page page_table[b][t / page_size], row t % page_size.
// Index tensors in host memory are checked before anything runs (entries in range, L + Sq within the
// sequence's capacity); on error nothing is written.
// On a CUDA device the index tensors (cache_seqlens, page_table, cache_batch_idx) are device memory that
// the host never reads (no synchronisation, the same launch for any lengths: CUDA-graph safe), so their
// entries are the caller's contract there: out-of-range entries are undefined behaviour. The CUDA path
// appends with one kernel, attends with a split-KV kernel and, with more than one split, merges the
// splits' partial results with a combine kernel.
#pragma once

#include <cstddef>

#include "flashattn/attention.hpp"
#include "flashattn/run_info.hpp"
#include "flashattn/status.hpp"
#include "flashattn/tensor.hpp"

namespace flashattn {

/// Arguments of forward_kvcache(). From AttentionArgs: q (B, Sq, H, D) holds the new tokens' queries,
/// k and v are the cache, the mathematical options and the device are as in forward(); the varlen fields
/// (cu_seqlens_q/k, seqused_k, max_seqlen_q/k) must be left empty.
struct KVCacheArgs : AttentionArgs {
  TensorView cache_seqlens;    ///< int32 (B): tokens already in the cache, per sequence (>= 0).
  TensorView page_table;       ///< Paged cache when present: int32 (B, max_pages), page indices.
  TensorView cache_batch_idx;  ///< Dense cache, optional: int32 (B), the cache entry of each sequence.
  TensorView k_new;            ///< Optional (B, Sq, Hk, D): keys appended before attending (with v_new).
  TensorView v_new;            ///< Optional (B, Sq, Hk, Dv): values appended before attending (with k_new).
  TensorView rotary_cos;       ///< Optional (S_rot, R / 2), dtype of q: cosines of the rotary angles.
  TensorView rotary_sin;       ///< Optional (S_rot, R / 2), dtype of q: sines of the rotary angles.
  bool rotary_interleaved = false;  ///< Rotate pairs (x_{2i}, x_{2i+1}) instead of (x_i, x_{i + R/2}).
  TensorView out;                   ///< Output (B, Sq, H, Dv), dtype of q. Written fully.
  TensorView lse;                   ///< Optional fp32 (B, H, Sq).
  /// Splits of the cache length for the GPU's split-KV decoding; 0 = chosen by the library. Results do not
  /// depend on it beyond rounding. The CPU backend always runs one split.
  int num_splits = 0;
  /// Optional device scratch of at least kvcache_workspace_size(*this) bytes for the CUDA decode kernels
  /// (rotated queries, split partials). Null: the call allocates and frees it on its stream
  /// (cudaMallocAsync), which puts allocation nodes into a CUDA graph that captures the call. Unused on the
  /// CPU.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

/// Appends (optionally) and attends, as described above. Same error contract as forward().
Status forward_kvcache(const KVCacheArgs& args, RunInfo* info = nullptr);

/// Bytes of `workspace` forward_kvcache(args) needs on its device: a function of the call's shapes, options
/// and num_splits only (never of the cache_seqlens values). 0 when none is needed (one split and no rotary
/// embedding, a CPU call) or when args are invalid (the call then reports why).
std::size_t kvcache_workspace_size(const KVCacheArgs& args);

/// Whether forward_kvcache(args) would run, and if not why (the same validation and selection).
Status is_supported(const KVCacheArgs& args);

}  // namespace flashattn
