// flashattn — validation and normalisation of the public arguments (DESIGN.md §1).
//
// Every rule of the semantics is checked here, once, before any backend sees the call: on failure the
// Status names the argument and the rule, and nothing has been launched or written. On success the
// arguments are normalised into the plain params structs the backends take (defaults resolved, causal
// folded into the window, dense and varlen addressing unified).
#pragma once

#include <cstdint>

#include "core/params.hpp"
#include "flashattn/attention.hpp"
#include "flashattn/kvcache.hpp"

namespace flashattn::core {

/// Checks `args` and fills `params`. Reads host-resident cu_seqlens / seqused_k to check their contents.
Status validate_forward(const ForwardArgs& args, ForwardParams& params);

/// Checks `args` (including out, dout, lse, dq, dk, dv) and fills `params`.
Status validate_backward(const BackwardArgs& args, BackwardParams& params);

/// Checks `args` of forward_kvcache (reading host-resident cache_seqlens, page_table and cache_batch_idx
/// to check every entry and each sequence's capacity) and fills `params`.
Status validate_kvcache(const KVCacheArgs& args, KVCacheParams& params);

/// Checks q, k and v of rank `rank` (4: (B, S, H, D)-like, 3: varlen (total, H, D)): presence, layout,
/// dtypes, heads (H % Hk == 0), head dims, v's shape against k's; sets the dtype, heads, head dims,
/// pointers and strides of `params`.
Status validate_qkv(const AttentionArgs& args, int rank, const char* q_layout, const char* k_layout,
                    const char* v_layout, ForwardParams& params);

/// Checks the mathematical options of `args` (scale, softcap, window, causal, ALiBi slopes) for a problem
/// of `heads` query heads, head dim `head_dim` and `params.batch` sequences, and sets them in `params`.
Status validate_options(const AttentionArgs& args, std::int64_t heads, std::int64_t head_dim,
                        ForwardParams& params);

}  // namespace flashattn::core
