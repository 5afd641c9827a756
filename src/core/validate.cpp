// flashattn — validation and normalisation of the public arguments. See validate.hpp.
#include "core/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "core/validate_checks.hpp"

namespace flashattn::core {
namespace {

/// Checks one cu_seqlens tensor's metadata and, for host memory, its contents; returns the longest
/// sequence through `longest`.
Status check_cu_seqlens(const char* name, const TensorView& cu, std::int64_t batch_plus_one,
                        std::int64_t total, const char* total_name, bool host, int& longest) {
  FLASHATTN_RETURN_IF_ERROR(check_tensor(name, cu, 1, "(B + 1)"));
  FLASHATTN_RETURN_IF_ERROR(check_dtype(name, cu, DType::i32, "sequence offsets"));
  if (cu.shape[0] != batch_plus_one) {
    return invalid(std::string(name) + ": must have B + 1 = " + std::to_string(batch_plus_one) +
                   " entries, got " + std::to_string(cu.shape[0]));
  }
  if (cu.shape[0] < 1) return invalid(std::string(name) + ": must have at least one entry (B + 1 >= 1)");
  longest = 0;
  if (!host) return {};
  const auto* values = static_cast<const std::int32_t*>(cu.data);
  if (values[0] != 0) {
    return invalid(std::string(name) + ": must start at 0, got " + std::to_string(values[0]));
  }
  for (std::int64_t b = 0; b + 1 < cu.shape[0]; ++b) {
    const std::int64_t length = std::int64_t{values[b + 1]} - values[b];
    if (length < 0) {
      return invalid(std::string(name) + ": must be non-decreasing, but entry " + std::to_string(b + 1) +
                     " (" + std::to_string(values[b + 1]) + ") < entry " + std::to_string(b) + " (" +
                     std::to_string(values[b]) + ")");
    }
    longest = std::max<int>(longest, static_cast<int>(length));
  }
  if (values[cu.shape[0] - 1] > total) {
    return invalid(std::string(name) + ": last entry (" + std::to_string(values[cu.shape[0] - 1]) +
                   ") exceeds " + total_name + " (" + std::to_string(total) + ")");
  }
  return {};
}

/// The checks and normalisation shared by forward and backward: q, k, v, the varlen group, the options.
/// Fills everything of `params` except out and lse.
Status validate_common(const AttentionArgs& args, ForwardParams& params) {
  const bool varlen = args.cu_seqlens_q.present() || args.cu_seqlens_k.present();
  const bool host = args.device.kind == DeviceKind::cpu;
  const int rank = varlen ? 3 : 4;
  const char* q_layout = varlen ? "(total_q, H, D)" : "(B, Sq, H, D)";
  const char* k_layout = varlen ? "(total_k, Hk, D)" : "(B, Sk, Hk, D)";
  const char* v_layout = varlen ? "(total_k, Hk, Dv)" : "(B, Sk, Hk, Dv)";

  FLASHATTN_RETURN_IF_ERROR(validate_qkv(args, rank, q_layout, k_layout, v_layout, params));
  constexpr std::int64_t kMaxLength = std::numeric_limits<std::int32_t>::max();
  const int seq_dim = varlen ? 0 : 1;  // tokens: total_q / total_k, or Sq / Sk
  if (args.q.shape[seq_dim] > kMaxLength) return invalid("q: the number of query tokens must be below 2^31");
  if (args.k.shape[seq_dim] > kMaxLength) return invalid("k: the number of key tokens must be below 2^31");

  if (varlen) {
    if (!args.cu_seqlens_q.present()) return invalid("cu_seqlens_q: required when cu_seqlens_k is given");
    if (!args.cu_seqlens_k.present()) return invalid("cu_seqlens_k: required when cu_seqlens_q is given");
    // cu_seqlens_q defines B; cu_seqlens_k must agree with it.
    FLASHATTN_RETURN_IF_ERROR(check_tensor("cu_seqlens_q", args.cu_seqlens_q, 1, "(B + 1)"));
    const std::int64_t batch_plus_one = args.cu_seqlens_q.shape[0];
    int longest_q = 0;
    int longest_k = 0;
    FLASHATTN_RETURN_IF_ERROR(check_cu_seqlens("cu_seqlens_q", args.cu_seqlens_q, batch_plus_one,
                                               args.q.shape[0], "total_q = q.shape[0]", host, longest_q));
    FLASHATTN_RETURN_IF_ERROR(check_cu_seqlens("cu_seqlens_k", args.cu_seqlens_k, batch_plus_one,
                                               args.k.shape[0], "total_k = k.shape[0]", host, longest_k));
    params.batch = static_cast<int>(batch_plus_one - 1);
    if (args.seqused_k.present()) {
      FLASHATTN_RETURN_IF_ERROR(check_tensor("seqused_k", args.seqused_k, 1, "(B)"));
      FLASHATTN_RETURN_IF_ERROR(check_dtype("seqused_k", args.seqused_k, DType::i32, "key counts"));
      if (args.seqused_k.shape[0] != params.batch) {
        return invalid("seqused_k: must have B = " + std::to_string(params.batch) + " entries, got " +
                       std::to_string(args.seqused_k.shape[0]));
      }
      if (host) {
        const auto* used = static_cast<const std::int32_t*>(args.seqused_k.data);
        const auto* cu_k = static_cast<const std::int32_t*>(args.cu_seqlens_k.data);
        for (int b = 0; b < params.batch; ++b) {
          const std::int32_t length = cu_k[b + 1] - cu_k[b];
          if (used[b] < 0 || used[b] > length) {
            return invalid("seqused_k: entry " + std::to_string(b) + " (" + std::to_string(used[b]) +
                           ") must lie in [0, " + std::to_string(length) + "], the sequence's key count");
          }
        }
      }
      params.seqused_k = static_cast<const std::int32_t*>(args.seqused_k.data);
    }
    if (args.max_seqlen_q < 0) return invalid("max_seqlen_q: must be >= 0 (0 = computed from cu_seqlens_q)");
    if (args.max_seqlen_k < 0) return invalid("max_seqlen_k: must be >= 0 (0 = computed from cu_seqlens_k)");
    if (host) {
      if (args.max_seqlen_q > 0 && args.max_seqlen_q < longest_q) {
        return invalid("max_seqlen_q: " + std::to_string(args.max_seqlen_q) +
                       " is less than the longest query sequence (" + std::to_string(longest_q) + ")");
      }
      if (args.max_seqlen_k > 0 && args.max_seqlen_k < longest_k) {
        return invalid("max_seqlen_k: " + std::to_string(args.max_seqlen_k) +
                       " is less than the longest key sequence (" + std::to_string(longest_k) + ")");
      }
      params.max_seqlen_q = args.max_seqlen_q > 0 ? args.max_seqlen_q : longest_q;
      params.max_seqlen_k = args.max_seqlen_k > 0 ? args.max_seqlen_k : longest_k;
    } else {
      // Device-resident offsets are not read on the host (that would synchronise): the caller states
      // the longest lengths, as with flash-attn's varlen API.
      if (params.batch > 0 && args.max_seqlen_q == 0) {
        return invalid(
            "max_seqlen_q: required (> 0, an upper bound; 1 if every sequence is empty) for varlen inputs "
            "on a CUDA device");
      }
      if (params.batch > 0 && args.max_seqlen_k == 0) {
        return invalid(
            "max_seqlen_k: required (> 0, an upper bound; 1 if every sequence is empty) for varlen inputs "
            "on a CUDA device");
      }
      params.max_seqlen_q = args.max_seqlen_q;
      params.max_seqlen_k = args.max_seqlen_k;
    }
    params.cu_seqlens_q = static_cast<const std::int32_t*>(args.cu_seqlens_q.data);
    params.cu_seqlens_k = static_cast<const std::int32_t*>(args.cu_seqlens_k.data);
  } else {
    if (args.seqused_k.present())
      return invalid("seqused_k: only allowed with varlen inputs (cu_seqlens_q/k)");
    const std::int64_t batch = args.q.shape[0];
    if (args.k.shape[0] != batch) {
      return invalid("k: batch (shape[0] = " + std::to_string(args.k.shape[0]) + ") must equal q's batch (" +
                     std::to_string(batch) + ")");
    }
    if (batch > std::numeric_limits<std::int32_t>::max()) return invalid("q: batch must be below 2^31");
    params.batch = static_cast<int>(batch);
    params.max_seqlen_q = static_cast<int>(args.q.shape[1]);
    params.max_seqlen_k = static_cast<int>(args.k.shape[1]);
  }

  return validate_options(args, params.heads, params.head_dim, params);
}

/// out-like tensors: same shape as (B, Sq, H, Dv) / (total_q, H, Dv) and the dtype of q.
Status check_output_like(const char* name, const TensorView& t, const AttentionArgs& args, bool varlen) {
  if (!t.present()) return invalid(std::string(name) + ": required");
  const int rank = varlen ? 3 : 4;
  const char* layout = varlen ? "(total_q, H, Dv)" : "(B, Sq, H, Dv)";
  FLASHATTN_RETURN_IF_ERROR(check_tensor(name, t, rank, layout));
  FLASHATTN_RETURN_IF_ERROR(check_dtype(name, t, args.q.dtype, "the dtype of q"));
  std::vector<std::int64_t> expected(args.q.shape.begin(), args.q.shape.begin() + rank);
  expected[rank - 1] = args.v.shape[rank - 1];
  return check_shape(name, t, expected, layout);
}

Status check_lse(const char* name, const TensorView& lse, const ForwardParams& params,
                 const AttentionArgs& args, bool varlen) {
  const char* layout = varlen ? "(H, total_q)" : "(B, H, Sq)";
  FLASHATTN_RETURN_IF_ERROR(check_tensor(name, lse, varlen ? 2 : 3, layout));
  FLASHATTN_RETURN_IF_ERROR(check_dtype(name, lse, DType::fp32, "log-sum-exp is fp32"));
  if (varlen) return check_shape(name, lse, {params.heads, args.q.shape[0]}, layout);
  return check_shape(name, lse, {params.batch, params.heads, params.max_seqlen_q}, layout);
}

void set_lse(const TensorView& lse, bool varlen, ForwardParams& params) {
  params.lse = static_cast<float*>(lse.data);
  params.lse_batch_stride = varlen ? 0 : lse.stride[0];
  params.lse_head_stride = varlen ? lse.stride[0] : lse.stride[1];
}

}  // namespace

Status validate_qkv(const AttentionArgs& args, int rank, const char* q_layout, const char* k_layout,
                    const char* v_layout, ForwardParams& params) {
  if (!args.q.present()) return invalid("q: required");
  if (!args.k.present()) return invalid("k: required");
  if (!args.v.present()) return invalid("v: required");
  FLASHATTN_RETURN_IF_ERROR(check_tensor("q", args.q, rank, q_layout));
  FLASHATTN_RETURN_IF_ERROR(check_tensor("k", args.k, rank, k_layout));
  FLASHATTN_RETURN_IF_ERROR(check_tensor("v", args.v, rank, v_layout));
  if (args.q.dtype != DType::fp16 && args.q.dtype != DType::bf16 && args.q.dtype != DType::fp32) {
    return invalid(std::string("q: dtype must be fp16, bf16 or fp32, got ") + to_string(args.q.dtype));
  }
  FLASHATTN_RETURN_IF_ERROR(check_dtype("k", args.k, args.q.dtype, "the dtype of q"));
  FLASHATTN_RETURN_IF_ERROR(check_dtype("v", args.v, args.q.dtype, "the dtype of q"));

  const int h_dim = rank - 2;  // index of the heads dimension
  const std::int64_t heads = args.q.shape[h_dim];
  const std::int64_t heads_kv = args.k.shape[h_dim];
  const std::int64_t head_dim = args.q.shape[rank - 1];
  const std::int64_t head_dim_v = args.v.shape[rank - 1];
  if (heads < 1) return invalid("q: the number of heads (shape[" + std::to_string(h_dim) + "]) must be >= 1");
  if (heads_kv < 1)
    return invalid("k: the number of kv heads (shape[" + std::to_string(h_dim) + "]) must be >= 1");
  if (heads % heads_kv != 0) {
    return invalid("k: kv heads (" + std::to_string(heads_kv) + ") must divide q's heads (" +
                   std::to_string(heads) + "): H % Hk == 0 is required for GQA/MQA");
  }
  if (head_dim < 1) return invalid("q: head dim (last dimension) must be >= 1");
  if (head_dim_v < 1) return invalid("v: head dim (last dimension) must be >= 1");
  if (args.k.shape[rank - 1] != head_dim) {
    return invalid("k: head dim (" + std::to_string(args.k.shape[rank - 1]) + ") must equal q's head dim (" +
                   std::to_string(head_dim) + ")");
  }
  for (int d = 0; d < rank - 1; ++d) {
    if (args.v.shape[d] != args.k.shape[d]) {
      return invalid("v: shape must match k's in every dimension but the last: " + shape_string(args.v) +
                     " vs " + shape_string(args.k));
    }
  }
  params.dtype = args.q.dtype;
  params.heads = static_cast<int>(heads);
  params.heads_kv = static_cast<int>(heads_kv);
  params.head_dim = static_cast<int>(head_dim);
  params.head_dim_v = static_cast<int>(head_dim_v);
  params.q = args.q.data;
  params.k = args.k.data;
  params.v = args.v.data;
  params.q_strides = strides_of(args.q, rank == 3);
  params.k_strides = strides_of(args.k, rank == 3);
  params.v_strides = strides_of(args.v, rank == 3);
  return {};
}

Status validate_options(const AttentionArgs& args, std::int64_t heads, std::int64_t head_dim,
                        ForwardParams& params) {
  if (args.softmax_scale && !std::isfinite(*args.softmax_scale)) {
    return invalid("softmax_scale: must be finite, got " + std::to_string(*args.softmax_scale));
  }
  if (!std::isfinite(args.softcap) || args.softcap < 0) {
    return invalid("softcap: must be finite and >= 0 (0 = off), got " + std::to_string(args.softcap));
  }
  if (args.window_left < -1) {
    return invalid("window_left: must be >= -1 (-1 = unbounded), got " + std::to_string(args.window_left));
  }
  if (args.window_right < -1) {
    return invalid("window_right: must be >= -1 (-1 = unbounded), got " + std::to_string(args.window_right));
  }
  if (args.causal && args.window_right > 0) {
    return invalid("window_right: causal means window_right = 0, got " + std::to_string(args.window_right));
  }
  params.scale = args.softmax_scale ? *args.softmax_scale : 1.0f / std::sqrt(static_cast<float>(head_dim));
  params.scale_log2 = params.scale * std::numbers::log2e_v<float>;
  params.softcap = args.softcap;
  params.causal = args.causal;
  params.window_left = args.window_left < 0 ? kUnboundedWindow : args.window_left;
  params.window_right = args.causal ? 0 : (args.window_right < 0 ? kUnboundedWindow : args.window_right);

  if (args.alibi_slopes.present()) {
    const TensorView& alibi = args.alibi_slopes;
    if (alibi.rank != 1 && alibi.rank != 2) {
      return invalid("alibi_slopes: expected shape (H) or (B, H), got rank " + std::to_string(alibi.rank));
    }
    FLASHATTN_RETURN_IF_ERROR(check_tensor("alibi_slopes", alibi, alibi.rank, "(H) or (B, H)"));
    FLASHATTN_RETURN_IF_ERROR(check_dtype("alibi_slopes", alibi, DType::fp32, "slopes are fp32"));
    if (alibi.rank == 1) {
      FLASHATTN_RETURN_IF_ERROR(check_shape("alibi_slopes", alibi, {heads}, "(H)"));
    } else {
      FLASHATTN_RETURN_IF_ERROR(check_shape("alibi_slopes", alibi, {params.batch, heads}, "(B, H)"));
    }
    params.alibi_slopes = static_cast<const float*>(alibi.data);
    params.alibi_batch_stride = alibi.rank == 2 ? alibi.stride[0] : 0;
  }
  return {};
}

Status validate_forward(const ForwardArgs& args, ForwardParams& params) {
  params = ForwardParams{};
  FLASHATTN_RETURN_IF_ERROR(validate_common(args, params));
  const bool varlen = params.is_varlen();
  FLASHATTN_RETURN_IF_ERROR(check_output_like("out", args.out, args, varlen));
  params.out = args.out.data;
  params.out_strides = strides_of(args.out, varlen);
  if (args.lse.present()) {
    FLASHATTN_RETURN_IF_ERROR(check_lse("lse", args.lse, params, args, varlen));
    set_lse(args.lse, varlen, params);
  }
  return set_workspace(args.workspace, args.workspace_bytes, params);
}

Status validate_backward(const BackwardArgs& args, BackwardParams& params) {
  params = BackwardParams{};
  FLASHATTN_RETURN_IF_ERROR(validate_common(args, params));
  const bool varlen = params.is_varlen();
  FLASHATTN_RETURN_IF_ERROR(check_output_like("out", args.out, args, varlen));
  FLASHATTN_RETURN_IF_ERROR(check_output_like("dout", args.dout, args, varlen));
  if (!args.lse.present()) return invalid("lse: required by the backward (the forward's log-sum-exp)");
  FLASHATTN_RETURN_IF_ERROR(check_lse("lse", args.lse, params, args, varlen));
  const int rank = varlen ? 3 : 4;
  const struct {
    const char* name;
    const TensorView& grad;
    const TensorView& like;
    const char* layout;
  } grads[] = {{"dq", args.dq, args.q, varlen ? "(total_q, H, D)" : "(B, Sq, H, D)"},
               {"dk", args.dk, args.k, varlen ? "(total_k, Hk, D)" : "(B, Sk, Hk, D)"},
               {"dv", args.dv, args.v, varlen ? "(total_k, Hk, Dv)" : "(B, Sk, Hk, Dv)"}};
  for (const auto& g : grads) {
    if (!g.grad.present()) return invalid(std::string(g.name) + ": required");
    FLASHATTN_RETURN_IF_ERROR(check_tensor(g.name, g.grad, rank, g.layout));
    FLASHATTN_RETURN_IF_ERROR(check_dtype(g.name, g.grad, args.q.dtype, "the dtype of q"));
    FLASHATTN_RETURN_IF_ERROR(
        check_shape(g.name, g.grad,
                    std::vector<std::int64_t>(g.like.shape.begin(), g.like.shape.begin() + rank), g.layout));
  }
  params.out = args.out.data;
  params.out_strides = strides_of(args.out, varlen);
  set_lse(args.lse, varlen, params);
  params.dout = args.dout.data;
  params.dout_strides = strides_of(args.dout, varlen);
  params.dq = args.dq.data;
  params.dk = args.dk.data;
  params.dv = args.dv.data;
  params.dq_strides = strides_of(args.dq, varlen);
  params.dk_strides = strides_of(args.dk, varlen);
  params.dv_strides = strides_of(args.dv, varlen);
  params.deterministic = args.deterministic;
  return set_workspace(args.workspace, args.workspace_bytes, params);
}

}  // namespace flashattn::core
