// flashattn — one correctness case: the shapes and options of an attention call, plus how its inputs are
// laid out. Cases are built by sweeps (sweeps.hpp) and run by run_case (check.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flashattn/attention.hpp"

namespace flashattn::testing {

enum class Op { forward, backward };

const char* to_string(Op op);

struct Case {
  DType dtype = DType::bf16;
  int batch = 1;  ///< Dense mode; in varlen mode batch = seqlens_q.size().
  int heads = 1;
  int heads_kv = 1;
  int head_dim = 64;
  int head_dim_v = 0;  ///< 0 = head_dim.
  int seqlen_q = 1;    ///< Dense mode.
  int seqlen_k = 1;    ///< Dense mode.
  /// Varlen mode when non-empty (same length): per-sequence query and key lengths (0 allowed).
  std::vector<int> seqlens_q;
  std::vector<int> seqlens_k;
  /// Optional in varlen mode: keys used per sequence (<= seqlens_k[b]).
  std::vector<int> seqused_k;

  bool causal = false;
  int window_left = -1;
  int window_right = -1;
  float softcap = 0.0f;
  bool alibi = false;  ///< Random positive slopes, shape (B, H).
  std::optional<float> softmax_scale;

  /// Non-contiguous views: rows and heads padded, and the padding poisoned with NaN so a read of it shows.
  bool strided = false;
  /// Multiplies the random inputs (e.g. 5 for the large-logit regression cases).
  float input_scale = 1.0f;
  std::uint64_t seed = 1;

  bool is_varlen() const { return !seqlens_q.empty(); }
  int dv() const { return head_dim_v ? head_dim_v : head_dim; }
};

/// A dense case without options: `batch` sequences of `seqlen_q` queries and `seqlen_k` keys, `heads` query
/// heads on `heads_kv` kv heads, D = Dv = `head_dim`, inputs from `seed`.
Case make_dense_case(DType dtype, int head_dim, int batch, int heads, int heads_kv, int seqlen_q,
                     int seqlen_k, std::uint64_t seed);

/// One-line description, e.g. "bf16 B2 H8/2 Sq113 Sk203 D64 causal strided".
std::string describe(const Case& c);

/// FLOPs of the forward: 4 * sum over rows of kept keys * (D + Dv) / 2 — the exact masked count.
/// The backward is 2.5 times this.
double forward_flops(const Case& c);

}  // namespace flashattn::testing
