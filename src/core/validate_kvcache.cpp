// flashattn — validation and normalisation of forward_kvcache's arguments (kvcache.hpp).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/validate.hpp"
#include "core/validate_checks.hpp"

namespace flashattn::core {
namespace {

/// An optional int32 index tensor of shape `shape`.
Status check_index_tensor(const char* name, const TensorView& t, const std::vector<std::int64_t>& shape,
                          const char* layout) {
  FLASHATTN_RETURN_IF_ERROR(check_tensor(name, t, static_cast<int>(shape.size()), layout));
  FLASHATTN_RETURN_IF_ERROR(check_dtype(name, t, DType::i32, "indices"));
  return check_shape(name, t, shape, layout);
}

/// A tensor of q's dtype and the given shape.
Status check_like_q(const char* name, const TensorView& t, const TensorView& q,
                    const std::vector<std::int64_t>& shape, const char* layout) {
  FLASHATTN_RETURN_IF_ERROR(check_tensor(name, t, static_cast<int>(shape.size()), layout));
  FLASHATTN_RETURN_IF_ERROR(check_dtype(name, t, q.dtype, "the dtype of q"));
  return check_shape(name, t, shape, layout);
}

/// The host-resident index tensors' entries: lengths, cache entries, pages and rotary rows in range, so
/// that no later step reads or writes outside the tensors.
Status check_cache_indices(const KVCacheArgs& args, const KVCacheParams& params, std::int64_t capacity,
                           std::int64_t cache_entries, std::int64_t num_pages) {
  const auto* seqlens = static_cast<const std::int32_t*>(args.cache_seqlens.data);
  for (int b = 0; b < params.batch; ++b) {
    const std::int64_t length = seqlens[b];
    const std::int64_t used = length + params.seqlen_k_added;
    if (length < 0) {
      return invalid("cache_seqlens: entry " + std::to_string(b) + " (" + std::to_string(length) +
                     ") must be >= 0");
    }
    if (used > capacity) {
      return invalid("cache_seqlens: entry " + std::to_string(b) + " (" + std::to_string(length) + ") plus " +
                     std::to_string(params.seqlen_k_added) +
                     " appended tokens exceeds the sequence's capacity (" + std::to_string(capacity) +
                     (params.page_table ? " = max_pages * page_size)" : " = S_max)"));
    }
    if (params.cache_batch_idx) {
      const std::int64_t entry = params.cache_batch_idx[b];
      if (entry < 0 || entry >= cache_entries) {
        return invalid("cache_batch_idx: entry " + std::to_string(b) + " (" + std::to_string(entry) +
                       ") must lie in [0, " + std::to_string(cache_entries) + "), the cache's batch");
      }
    }
    if (params.page_table) {
      for (std::int64_t page = 0; page * params.page_size < used; ++page) {
        const std::int64_t index = params.page_table[b * params.page_table_batch_stride + page];
        if (index < 0 || index >= num_pages) {
          return invalid("page_table: entry (" + std::to_string(b) + ", " + std::to_string(page) +
                         ") = " + std::to_string(index) + " must lie in [0, " + std::to_string(num_pages) +
                         "), the cache's pages");
        }
      }
    }
    if (params.rotary_cos) {
      const std::int64_t last_position = length + std::max<std::int64_t>(params.seqlen_q_new, 1) - 1;
      if (last_position >= args.rotary_cos.shape[0]) {
        return invalid("rotary_cos: " + std::to_string(args.rotary_cos.shape[0]) + " rows, but sequence " +
                       std::to_string(b) + " needs position " + std::to_string(last_position) +
                       " (cache_seqlens + Sq - 1)");
      }
    }
  }
  return {};
}

}  // namespace

Status validate_kvcache(const KVCacheArgs& args, KVCacheParams& params) {
  params = KVCacheParams{};
  if (args.cu_seqlens_q.present() || args.cu_seqlens_k.present() || args.seqused_k.present() ||
      args.max_seqlen_q != 0 || args.max_seqlen_k != 0) {
    return invalid(
        "cu_seqlens_q: varlen arguments (cu_seqlens_q/k, seqused_k, max_seqlen_q/k) do not apply "
        "to forward_kvcache; cache_seqlens gives each sequence's length");
  }
  if (!args.cache_seqlens.present()) return invalid("cache_seqlens: required");
  const bool paged = args.page_table.present();
  const char* cache_layout = paged ? "(num_pages, page_size, Hk, D)" : "(B_cache, S_max, Hk, D)";
  FLASHATTN_RETURN_IF_ERROR(validate_qkv(args, 4, "(B, Sq, H, D)", cache_layout, cache_layout, params));
  const std::int64_t batch = args.q.shape[0];
  const std::int64_t seqlen_q = args.q.shape[1];
  const std::int64_t heads = params.heads;
  const std::int64_t heads_kv = params.heads_kv;
  const std::int64_t head_dim = params.head_dim;
  const std::int64_t head_dim_v = params.head_dim_v;
  constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max();
  if (batch > kMaxInt) return invalid("q: batch must be below 2^31");
  if (seqlen_q > kMaxInt) return invalid("q: the number of new tokens must be below 2^31");

  params.batch = static_cast<int>(batch);
  params.max_seqlen_q = static_cast<int>(seqlen_q);
  params.seqlen_q_new = static_cast<int>(seqlen_q);

  FLASHATTN_RETURN_IF_ERROR(check_index_tensor("cache_seqlens", args.cache_seqlens, {batch}, "(B)"));
  params.cache_seqlens = static_cast<const std::int32_t*>(args.cache_seqlens.data);
  std::int64_t capacity = 0;
  const std::int64_t cache_entries = args.k.shape[0];
  if (paged) {
    if (args.cache_batch_idx.present()) {
      return invalid("cache_batch_idx: only for a dense cache (the page table maps a paged cache)");
    }
    FLASHATTN_RETURN_IF_ERROR(check_tensor("page_table", args.page_table, 2, "(B, max_pages)"));
    FLASHATTN_RETURN_IF_ERROR(check_dtype("page_table", args.page_table, DType::i32, "page indices"));
    if (args.page_table.shape[0] != batch) {
      return invalid("page_table: must have B = " + std::to_string(batch) + " rows, got " +
                     shape_string(args.page_table));
    }
    if (args.k.shape[1] < 1) return invalid("k: page_size (shape[1]) must be >= 1");
    if (args.k.shape[1] > kMaxInt) return invalid("k: page_size (shape[1]) must be below 2^31");
    params.page_table = static_cast<const std::int32_t*>(args.page_table.data);
    params.page_table_batch_stride = args.page_table.stride[0];
    params.page_size = static_cast<int>(args.k.shape[1]);
    capacity = args.page_table.shape[1] * args.k.shape[1];
  } else {
    if (args.cache_batch_idx.present()) {
      FLASHATTN_RETURN_IF_ERROR(check_index_tensor("cache_batch_idx", args.cache_batch_idx, {batch}, "(B)"));
      if (args.cache_batch_idx.stride[0] != 1 && batch > 1) {
        return invalid("cache_batch_idx: must be contiguous (stride 1)");
      }
      params.cache_batch_idx = static_cast<const std::int32_t*>(args.cache_batch_idx.data);
    } else if (cache_entries < batch) {
      return invalid("k: the cache holds " + std::to_string(cache_entries) +
                     " sequences (shape[0]) but q has B = " + std::to_string(batch) +
                     "; pass cache_batch_idx to map sequences to cache entries");
    }
    capacity = args.k.shape[1];
  }
  if (args.cache_seqlens.stride[0] != 1 && batch > 1)
    return invalid("cache_seqlens: must be contiguous (stride 1)");
  if (capacity > kMaxInt) return invalid("k: a sequence's cache capacity must stay below 2^31 tokens");
  params.max_seqlen_k = static_cast<int>(capacity);

  if (args.k_new.present() != args.v_new.present()) {
    return invalid(std::string(args.k_new.present() ? "v_new" : "k_new") +
                   ": k_new and v_new are appended together; give both or neither");
  }
  if (args.k_new.present()) {
    FLASHATTN_RETURN_IF_ERROR(
        check_like_q("k_new", args.k_new, args.q, {batch, seqlen_q, heads_kv, head_dim}, "(B, Sq, Hk, D)"));
    FLASHATTN_RETURN_IF_ERROR(check_like_q("v_new", args.v_new, args.q,
                                           {batch, seqlen_q, heads_kv, head_dim_v}, "(B, Sq, Hk, Dv)"));
    params.k_new = args.k_new.data;
    params.v_new = args.v_new.data;
    params.k_new_strides = strides_of(args.k_new, false);
    params.v_new_strides = strides_of(args.v_new, false);
    params.seqlen_k_added = static_cast<int>(seqlen_q);
  }

  if (args.rotary_cos.present() != args.rotary_sin.present()) {
    return invalid(std::string(args.rotary_cos.present() ? "rotary_sin" : "rotary_cos") +
                   ": rotary_cos and rotary_sin come together; give both or neither");
  }
  if (args.rotary_cos.present()) {
    FLASHATTN_RETURN_IF_ERROR(check_tensor("rotary_cos", args.rotary_cos, 2, "(S_rot, R / 2)"));
    FLASHATTN_RETURN_IF_ERROR(check_dtype("rotary_cos", args.rotary_cos, args.q.dtype, "the dtype of q"));
    FLASHATTN_RETURN_IF_ERROR(check_like_q("rotary_sin", args.rotary_sin, args.q,
                                           {args.rotary_cos.shape[0], args.rotary_cos.shape[1]},
                                           "(S_rot, R / 2)"));
    const std::int64_t rotary_dim = 2 * args.rotary_cos.shape[1];
    if (rotary_dim < 2 || rotary_dim > head_dim) {
      return invalid("rotary_cos: R = 2 * shape[1] = " + std::to_string(rotary_dim) +
                     " must lie in [2, D = " + std::to_string(head_dim) + "]");
    }
    params.rotary_cos = args.rotary_cos.data;
    params.rotary_sin = args.rotary_sin.data;
    params.rotary_cos_row_stride = args.rotary_cos.stride[0];
    params.rotary_sin_row_stride = args.rotary_sin.stride[0];
    params.rotary_dim = static_cast<int>(rotary_dim);
    params.rotary_interleaved = args.rotary_interleaved;
  }
  if (args.num_splits < 0) {
    return invalid("num_splits: must be >= 0 (0 = chosen by the library), got " +
                   std::to_string(args.num_splits));
  }
  params.num_splits = args.num_splits;
  FLASHATTN_RETURN_IF_ERROR(set_workspace(args.workspace, args.workspace_bytes, params));

  FLASHATTN_RETURN_IF_ERROR(
      check_like_q("out", args.out, args.q, {batch, seqlen_q, heads, head_dim_v}, "(B, Sq, H, Dv)"));
  params.out = args.out.data;
  params.out_strides = strides_of(args.out, false);
  if (args.lse.present()) {
    FLASHATTN_RETURN_IF_ERROR(check_tensor("lse", args.lse, 3, "(B, H, Sq)"));
    FLASHATTN_RETURN_IF_ERROR(check_dtype("lse", args.lse, DType::fp32, "log-sum-exp is fp32"));
    FLASHATTN_RETURN_IF_ERROR(check_shape("lse", args.lse, {batch, heads, seqlen_q}, "(B, H, Sq)"));
    params.lse = static_cast<float*>(args.lse.data);
    params.lse_batch_stride = args.lse.stride[0];
    params.lse_head_stride = args.lse.stride[1];
  }
  FLASHATTN_RETURN_IF_ERROR(validate_options(args, heads, head_dim, params));

  if (args.device.kind == DeviceKind::cpu) {
    const std::int64_t num_pages = paged ? args.k.shape[0] : 0;
    FLASHATTN_RETURN_IF_ERROR(check_cache_indices(args, params, capacity, cache_entries, num_pages));
  }
  return {};
}

}  // namespace flashattn::core
