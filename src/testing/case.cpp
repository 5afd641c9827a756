#include "testing/case.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>

namespace flashattn::testing {
namespace {

std::string join(const std::vector<int>& values) {
  std::ostringstream s;
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? "," : "") << values[i];
  return s.str();
}

// Keys kept by the rows of one sequence (DESIGN.md §1 step 3), summed over its rows.
std::int64_t kept_pairs(const Case& c, std::int64_t seqlen_q, std::int64_t seqlen_k) {
  const int right = c.causal ? 0 : c.window_right;
  std::int64_t pairs = 0;
  for (std::int64_t i = 0; i < seqlen_q; ++i) {
    const std::int64_t diagonal = i + seqlen_k - seqlen_q;
    const std::int64_t first = c.window_left < 0 ? 0 : std::max<std::int64_t>(0, diagonal - c.window_left);
    const std::int64_t last =
        right < 0 ? seqlen_k - 1 : std::min<std::int64_t>(seqlen_k - 1, diagonal + right);
    pairs += std::max<std::int64_t>(0, last - first + 1);
  }
  return pairs;
}

}  // namespace

const char* to_string(Op op) { return op == Op::forward ? "fwd" : "bwd"; }

Case make_dense_case(DType dtype, int head_dim, int batch, int heads, int heads_kv, int seqlen_q,
                     int seqlen_k, std::uint64_t seed) {
  Case c;
  c.dtype = dtype;
  c.head_dim = head_dim;
  c.batch = batch;
  c.heads = heads;
  c.heads_kv = heads_kv;
  c.seqlen_q = seqlen_q;
  c.seqlen_k = seqlen_k;
  c.seed = seed;
  return c;
}

std::string describe(const Case& c) {
  std::ostringstream s;
  s << to_string(c.dtype);
  if (c.is_varlen()) {
    s << " varlen q[" << join(c.seqlens_q) << "] k[" << join(c.seqlens_k) << "]";
    if (!c.seqused_k.empty()) s << " used[" << join(c.seqused_k) << "]";
  } else {
    s << " B" << c.batch;
  }
  s << " H" << c.heads << '/' << c.heads_kv;
  if (!c.is_varlen()) s << " Sq" << c.seqlen_q << " Sk" << c.seqlen_k;
  s << " D" << c.head_dim;
  if (c.dv() != c.head_dim) s << " Dv" << c.dv();
  if (c.causal) s << " causal";
  if (c.window_left >= 0 || c.window_right >= 0)
    s << " window(" << c.window_left << ',' << c.window_right << ')';
  if (c.softcap > 0) s << " softcap" << c.softcap;
  if (c.alibi) s << " alibi";
  if (c.softmax_scale) s << " scale" << *c.softmax_scale;
  if (c.strided) s << " strided";
  if (c.input_scale != 1.0f) s << " x" << c.input_scale;
  return s.str();
}

double forward_flops(const Case& c) {
  std::int64_t pairs = 0;
  if (c.is_varlen()) {
    for (std::size_t b = 0; b < c.seqlens_q.size(); ++b) {
      const int keys = c.seqused_k.empty() ? c.seqlens_k[b] : c.seqused_k[b];
      pairs += kept_pairs(c, c.seqlens_q[b], keys);
    }
  } else {
    pairs = c.batch * kept_pairs(c, c.seqlen_q, c.seqlen_k);
  }
  // Two multiply-adds per pair and dimension: q·k over D, p·v over Dv.
  return 2.0 * static_cast<double>(pairs) * c.heads * (c.head_dim + c.dv());
}

}  // namespace flashattn::testing
