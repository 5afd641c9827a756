// flashattn — the normalised problem every backend receives.
//
// validate.cpp turns the public ForwardArgs/BackwardArgs into these structs once: defaults resolved
// (scale, window, causal), strides unified for dense and varlen, derived constants precomputed. Backends
// never look at the public structs and never re-check arguments. The structs are plain data so a CUDA
// kernel can take them by value (`__grid_constant__`).
//
// Addressing (dense and varlen alike): element (b, i, h, d) of q lives at
//   q + b * q_batch_stride + (q_start(b) + i) * q_row_stride + h * q_head_stride + d
// with q_start(b) = 0 and the batch stride of the tensor for dense inputs, q_start(b) = cu_seqlens_q[b]
// and q_batch_stride = 0 for varlen inputs. lse, k, v, out and the gradients follow the same rule.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"
#include "flashattn/tensor.hpp"

namespace flashattn {

/// Window bound meaning "no limit on this side"; larger than any sequence (lengths are int32).
inline constexpr std::int64_t kUnboundedWindow = std::int64_t{1} << 40;

/// Strides (elements) of one (B|-, S, H, D) operand.
struct OperandStrides {
  std::int64_t batch = 0;  ///< 0 in varlen mode.
  std::int64_t row = 0;    ///< Between consecutive tokens.
  std::int64_t head = 0;   ///< Between consecutive heads.
};

struct ForwardParams {
  DType dtype = DType::fp16;  ///< dtype of q, k, v and out.
  int batch = 0;
  int heads = 0;         ///< H: query heads.
  int heads_kv = 0;      ///< Hk: key/value heads; heads % heads_kv == 0.
  int head_dim = 0;      ///< D of q and k.
  int head_dim_v = 0;    ///< Dv of v and out.
  int max_seqlen_q = 0;  ///< Dense: Sq. Varlen: the longest query sequence.
  int max_seqlen_k = 0;  ///< Dense: Sk. Varlen: the longest key sequence.

  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* out = nullptr;
  float* lse = nullptr;  ///< Optional.
  OperandStrides q_strides, k_strides, v_strides, out_strides;
  std::int64_t lse_batch_stride = 0;  ///< 0 in varlen mode.
  std::int64_t lse_head_stride = 0;   ///< lse rows (tokens) are contiguous.
  void* workspace = nullptr;  ///< Caller's device scratch for the CUDA path; null = allocate per call.
  std::size_t workspace_bytes = 0;

  /// Varlen: all three null in dense mode; seqused_k optional in varlen mode.
  const std::int32_t* cu_seqlens_q = nullptr;
  const std::int32_t* cu_seqlens_k = nullptr;
  const std::int32_t* seqused_k = nullptr;

  float scale = 0.0f;       ///< Multiplier of q·k (resolved default 1/sqrt(D)).
  float scale_log2 = 0.0f;  ///< scale * log2(e), for exp2-based softmax when softcap is off.
  float softcap = 0.0f;     ///< 0 = off.
  /// Normalised window: keep key j of query row i iff
  ///   i + offset - window_left <= j <= i + offset + window_right, offset = seqlen_k(b) - seqlen_q(b).
  /// Unbounded sides hold kUnboundedWindow. causal is window_right == 0 (kept for reporting).
  std::int64_t window_left = kUnboundedWindow;
  std::int64_t window_right = kUnboundedWindow;
  bool causal = false;
  /// ALiBi: slope of (b, h) is alibi_slopes[b * alibi_batch_stride + h]; null = off.
  const float* alibi_slopes = nullptr;
  std::int64_t alibi_batch_stride = 0;

  /// KV cache (forward_kvcache): sequence b attends to cache_seqlens[b] + seqlen_k_added keys of the
  /// cache held in k and v. Paged when page_table is set: token row t of sequence b lives in page
  /// page_table[b * page_table_batch_stride + t / page_size] (k_strides.batch / v_strides.batch step
  /// pages), row t % page_size. A dense cache serves sequence b from entry cache_batch_idx[b] (or b).
  const std::int32_t* cache_seqlens = nullptr;
  int seqlen_k_added = 0;
  const std::int32_t* page_table = nullptr;
  std::int64_t page_table_batch_stride = 0;
  int page_size = 0;
  const std::int32_t* cache_batch_idx = nullptr;

  FLASHATTN_HOST_DEVICE bool is_varlen() const { return cu_seqlens_q != nullptr; }
  FLASHATTN_HOST_DEVICE bool has_window() const {
    return window_left < kUnboundedWindow || window_right < kUnboundedWindow;
  }

  /// Query rows of sequence b.
  FLASHATTN_HOST_DEVICE int seqlen_q(int b) const {
    return cu_seqlens_q ? cu_seqlens_q[b + 1] - cu_seqlens_q[b] : max_seqlen_q;
  }
  /// Keys attended by sequence b (seqused_k when given).
  FLASHATTN_HOST_DEVICE int seqlen_k(int b) const {
    if (cache_seqlens) return cache_seqlens[b] + seqlen_k_added;
    if (seqused_k) return seqused_k[b];
    return cu_seqlens_k ? cu_seqlens_k[b + 1] - cu_seqlens_k[b] : max_seqlen_k;
  }
  /// First token of sequence b in the q / out / lse rows.
  FLASHATTN_HOST_DEVICE std::int64_t q_start(int b) const { return cu_seqlens_q ? cu_seqlens_q[b] : 0; }
  /// First token of sequence b in the k / v rows.
  FLASHATTN_HOST_DEVICE std::int64_t k_start(int b) const { return cu_seqlens_k ? cu_seqlens_k[b] : 0; }
  /// Offset (elements) of key/value token row `row` of sequence b, head 0, in the k or v tensor whose
  /// strides are `s`: through the page table for a paged cache, else as the other operands.
  FLASHATTN_HOST_DEVICE std::int64_t kv_row_offset(const OperandStrides& s, int b, std::int64_t row) const {
    if (page_table) {
      const std::int64_t page = page_table[b * page_table_batch_stride + row / page_size];
      return page * s.batch + (row % page_size) * s.row;
    }
    const std::int64_t entry = cache_batch_idx ? cache_batch_idx[b] : b;
    return entry * s.batch + (k_start(b) + row) * s.row;
  }
  /// Key rows of sequence b that are consecutive in memory from `row` on: to the end of its page, or
  /// all of them (2^62) without a page table.
  FLASHATTN_HOST_DEVICE std::int64_t kv_rows_contiguous(std::int64_t row) const {
    return page_table ? page_size - row % page_size : std::int64_t{1} << 62;
  }
  /// kv head read by query head h.
  FLASHATTN_HOST_DEVICE int kv_head(int h) const { return h / (heads / heads_kv); }
};

/// forward_kvcache: the attention over the cache (the ForwardParams part, cache fields set) plus the
/// append and rotary steps that precede it.
struct KVCacheParams : ForwardParams {
  int seqlen_q_new = 0;         ///< Sq: new tokens per sequence (the rows of q, k_new and v_new).
  const void* k_new = nullptr;  ///< Null when nothing is appended.
  const void* v_new = nullptr;
  OperandStrides k_new_strides, v_new_strides;
  const void* rotary_cos = nullptr;  ///< Null without rotary embedding.
  const void* rotary_sin = nullptr;
  std::int64_t rotary_cos_row_stride = 0;
  std::int64_t rotary_sin_row_stride = 0;
  int rotary_dim = 0;  ///< R: dimensions rotated (even, <= head_dim).
  bool rotary_interleaved = false;
  int num_splits = 0;  ///< Requested splits (0 = automatic).
  /// Rotary position of new query i of sequence b: L + i under a causal or windowed mask, else L.
  FLASHATTN_HOST_DEVICE std::int64_t query_position(int b, int i) const {
    return cache_seqlens[b] + (has_window() ? i : 0);
  }
};

/// Backward: the forward's problem plus the tensors only the backward has.
struct BackwardParams : ForwardParams {
  const void* dout = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  OperandStrides dout_strides, dq_strides, dk_strides, dv_strides;
  bool deterministic = false;
};

}  // namespace flashattn
