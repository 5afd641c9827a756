// flashattn reference — an attention problem in the oracle's own canonical layout. Deliberately
// independent of the API's structs (TensorView, ForwardParams): the oracle must not inherit a bug from
// the code it judges.
//
// Canonical layout: the sequences are concatenated, every tensor is row-major and contiguous.
//   q (total_q, H, D), k (total_k, Hk, D), v (total_k, Hk, Dv), out / dout (total_q, H, Dv),
//   lse (total_q, H); sequence b owns query rows [q_start(b), q_start(b) + seqlens_q[b]) and key rows
//   [k_start(b), k_start(b) + seqlens_k[b]). A dense (B, S, ...) tensor is this layout with equal lengths.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace flashattn::reference {

struct Problem {
  std::vector<int> seqlens_q;  ///< Query rows per sequence (0 allowed).
  std::vector<int> seqlens_k;  ///< Key rows stored per sequence (0 allowed).
  /// Empty, or keys used per sequence (<= seqlens_k[b]); the rows beyond are never read.
  std::vector<int> seqused_k;
  int heads = 1;
  int heads_kv = 1;
  int head_dim = 1;
  int head_dim_v = 1;

  std::vector<double> q;  ///< (total_q, H, D)
  std::vector<double> k;  ///< (total_k, Hk, D)
  std::vector<double> v;  ///< (total_k, Hk, Dv)

  /// The options exactly as a user gives them (DESIGN.md §1): no scale means 1/sqrt(D); window sides
  /// -1 = unbounded; causal means window_right = 0; softcap 0 = off.
  std::optional<double> scale;
  bool causal = false;
  int window_left = -1;
  int window_right = -1;
  double softcap = 0.0;
  std::vector<double> alibi_slopes;  ///< Empty, or (B, H).

  int batch() const { return static_cast<int>(seqlens_q.size()); }
  std::int64_t total_q() const;
  std::int64_t total_k() const;
  std::int64_t q_start(int b) const;
  std::int64_t k_start(int b) const;
  /// Keys attended by sequence b: seqused_k[b] when given, else seqlens_k[b].
  int keys_used(int b) const { return seqused_k.empty() ? seqlens_k[b] : seqused_k[b]; }
  double resolved_scale() const;
};

/// The forward's outputs in the canonical layout.
struct ForwardResult {
  std::vector<double> out;  ///< (total_q, H, Dv); 0 for rows with no key.
  std::vector<double> lse;  ///< (total_q, H), natural log; -inf for rows with no key.
  /// The scale of the rounding noise any correct float implementation has on the tensor, in units of
  /// the float epsilon: the largest sum of |terms| behind an element, terms through P weighted by the
  /// size of the numbers P is computed from (softmax of large logits is ill-conditioned). >= max |value|;
  /// 0 only for an all-zero tensor. Computed by the oracle; the base leaves it 0.
  double out_magnitude = 0;
  double lse_magnitude = 0;
};

/// The backward's outputs in the canonical layout.
struct BackwardResult {
  std::vector<double> dq;   ///< (total_q, H, D)
  std::vector<double> dk;   ///< (total_k, Hk, D); summed over the query heads of each kv head.
  std::vector<double> dv;   ///< (total_k, Hk, Dv); likewise. Key rows beyond keys_used(b) are 0.
  double dq_magnitude = 0;  ///< As ForwardResult::out_magnitude.
  double dk_magnitude = 0;
  double dv_magnitude = 0;
};

}  // namespace flashattn::reference
