// flashattn testing — the buffers of one case: random inputs rounded to the dtype and laid out as the case
// asks (contiguous, or padded and permuted with NaN in the padding), NaN-poisoned outputs, and the same
// rounded inputs in the oracle's canonical layout.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/problem.hpp"
#include "reference/rounding.hpp"
#include "testing/case.hpp"
#include "testing/host_tensor.hpp"

namespace flashattn::testing {

/// Where canonical token t (sequences concatenated) of an operand lives: dense (B, S, H, X) tensors hold
/// it at (t / S, t % S, h, x), varlen (T, H, X) tensors at row t. lse is (B, H, S) or (H, T).
struct TokenLayout {
  bool varlen = false;
  std::int64_t seqlen = 0;  ///< Dense: S of this operand.

  std::int64_t offset(const HostTensor& t, std::int64_t token, int head, int col) const;
  std::int64_t lse_offset(const HostTensor& lse, std::int64_t token, int head) const;
};

struct CaseTensors {
  HostTensor q, k, v;
  HostTensor cu_seqlens_q, cu_seqlens_k, seqused_k;  ///< int32, varlen only.
  HostTensor alibi_slopes;                           ///< fp32 (B, H) when the case has ALiBi.
  HostTensor out, lse;                               ///< Forward outputs (poisoned).
  HostTensor dout, dq, dk, dv;                       ///< Op::backward only; dq, dk, dv poisoned.
  TokenLayout q_layout, k_layout;
  int max_seqlen_q = 0, max_seqlen_k = 0;

  reference::Problem problem;       ///< The same rounded inputs; k/v rows beyond seqused_k are NaN.
  std::vector<double> dout_values;  ///< Canonical (total_q, H, Dv) dout, Op::backward only.
};

/// Builds the buffers of `c` from its seed. In varlen mode k/v rows beyond seqused_k keep their poison,
/// and strided cases get two poisoned rows past the last sequence.
CaseTensors make_case_tensors(const Case& c, Op op);

/// Reads a (token, head, col) operand into the canonical (tokens, heads, cols) layout.
std::vector<double> read_operand(const HostTensor& t, const TokenLayout& layout, std::int64_t tokens,
                                 int heads, int cols);
/// Reads lse into the canonical (tokens, heads) layout.
std::vector<double> read_lse(const HostTensor& lse, const TokenLayout& layout, std::int64_t tokens,
                             int heads);

/// The oracle's name for a floating dtype.
reference::Precision precision_of(DType dtype);

}  // namespace flashattn::testing
