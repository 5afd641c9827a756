#include "testing/case_tensors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "testing/random.hpp"

namespace flashattn::testing {
namespace {

// Rows past the last sequence in strided varlen cases: poisoned, never part of the problem.
constexpr std::int64_t kTrailingRows = 2;

// Random streams of a case, one per tensor, so adding a tensor never changes the others' values.
enum Stream : std::uint64_t { kQ = 1, kK, kV, kDout, kSlopes };

HostTensor make_tensor(bool strided, DType dtype, std::vector<std::int64_t> shape) {
  return strided ? HostTensor::padded(dtype, std::move(shape))
                 : HostTensor::contiguous(dtype, std::move(shape));
}

HostTensor make_index(const std::vector<int>& values) {
  HostTensor t = HostTensor::contiguous(DType::i32, {static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t.set(static_cast<std::int64_t>(i), values[i]);
  return t;
}

std::vector<int> prefix_sums(const std::vector<int>& lengths) {
  std::vector<int> sums(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) sums[i + 1] = sums[i] + lengths[i];
  return sums;
}

// Normal draws times `scale`, rounded to the dtype; the values the oracle and the code under test share.
std::vector<double> random_values(std::int64_t count, Rng rng, double scale, reference::Precision precision) {
  std::vector<double> values = normal_draws(rng, count);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) values[i] = reference::round_to(precision, scale * values[i]);
  return values;
}

// Writes canonical (tokens, heads, cols) values into `t`; tokens marked in `poisoned` (empty = none) keep
// their poison and become NaN in `values` too. Tokens in parallel: each writes its own elements of both.
void write_operand(HostTensor& t, const TokenLayout& layout, std::vector<double>& values, std::int64_t tokens,
                   int heads, int cols, const std::vector<bool>& poisoned) {
#pragma omp parallel for schedule(static)
  for (std::int64_t token = 0; token < tokens; ++token) {
    const bool skip = !poisoned.empty() && poisoned[token];
    for (int h = 0; h < heads; ++h) {
      for (int c = 0; c < cols; ++c) {
        double& value = values[(token * heads + h) * cols + c];
        if (skip) {
          value = std::numeric_limits<double>::quiet_NaN();
        } else {
          t.set(layout.offset(t, token, h, c), value);
        }
      }
    }
  }
}

}  // namespace

std::int64_t TokenLayout::offset(const HostTensor& t, std::int64_t token, int head, int col) const {
  if (varlen) return t.offset({token, head, col});
  return t.offset({token / seqlen, token % seqlen, head, col});
}

std::int64_t TokenLayout::lse_offset(const HostTensor& lse, std::int64_t token, int head) const {
  if (varlen) return lse.offset({head, token});
  return lse.offset({token / seqlen, head, token % seqlen});
}

reference::Precision precision_of(DType dtype) {
  switch (dtype) {
    case DType::fp16:
      return reference::Precision::fp16;
    case DType::bf16:
      return reference::Precision::bf16;
    default:
      return reference::Precision::fp32;
  }
}

CaseTensors make_case_tensors(const Case& c, Op op) {
  CaseTensors t;
  reference::Problem& p = t.problem;
  const bool varlen = c.is_varlen();
  const int H = c.heads, Hk = c.heads_kv, D = c.head_dim, Dv = c.dv();
  p.heads = H;
  p.heads_kv = Hk;
  p.head_dim = D;
  p.head_dim_v = Dv;
  if (varlen) {
    p.seqlens_q = c.seqlens_q;
    p.seqlens_k = c.seqlens_k;
    p.seqused_k = c.seqused_k;
  } else {
    p.seqlens_q.assign(c.batch, c.seqlen_q);
    p.seqlens_k.assign(c.batch, c.seqlen_k);
  }
  if (c.softmax_scale) p.scale = *c.softmax_scale;
  p.causal = c.causal;
  p.window_left = c.window_left;
  p.window_right = c.window_right;
  p.softcap = c.softcap;

  const std::int64_t total_q = p.total_q(), total_k = p.total_k();
  t.q_layout = {varlen, c.seqlen_q};
  t.k_layout = {varlen, c.seqlen_k};
  const DType dtype = c.dtype;
  if (varlen) {
    const std::int64_t extra = c.strided ? kTrailingRows : 0;
    const std::int64_t rows_q = total_q + extra, rows_k = total_k + extra;
    t.q = make_tensor(c.strided, dtype, {rows_q, H, D});
    t.k = make_tensor(c.strided, dtype, {rows_k, Hk, D});
    t.v = make_tensor(c.strided, dtype, {rows_k, Hk, Dv});
    t.out = make_tensor(c.strided, dtype, {rows_q, H, Dv});
    t.lse = make_tensor(c.strided, DType::fp32, {H, rows_q});
    t.cu_seqlens_q = make_index(prefix_sums(c.seqlens_q));
    t.cu_seqlens_k = make_index(prefix_sums(c.seqlens_k));
    if (!c.seqused_k.empty()) t.seqused_k = make_index(c.seqused_k);
    // Upper bounds of at least 1: a CUDA device cannot compute them from device-resident offsets (0 asks
    // for that), so a batch whose sequences are all empty states 1.
    const auto longest = [](const std::vector<int>& lengths) {
      return std::max(1, lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end()));
    };
    t.max_seqlen_q = longest(c.seqlens_q);
    t.max_seqlen_k = longest(c.seqlens_k);
  } else {
    t.q = make_tensor(c.strided, dtype, {c.batch, c.seqlen_q, H, D});
    t.k = make_tensor(c.strided, dtype, {c.batch, c.seqlen_k, Hk, D});
    t.v = make_tensor(c.strided, dtype, {c.batch, c.seqlen_k, Hk, Dv});
    t.out = make_tensor(c.strided, dtype, {c.batch, c.seqlen_q, H, Dv});
    t.lse = make_tensor(c.strided, DType::fp32, {c.batch, H, c.seqlen_q});
    t.max_seqlen_q = c.seqlen_q;
    t.max_seqlen_k = c.seqlen_k;
  }

  const reference::Precision precision = precision_of(dtype);
  const double scale = c.input_scale;
  p.q = random_values(total_q * H * D, Rng(c.seed, kQ), scale, precision);
  p.k = random_values(total_k * Hk * D, Rng(c.seed, kK), scale, precision);
  p.v = random_values(total_k * Hk * Dv, Rng(c.seed, kV), scale, precision);
  // Key rows beyond seqused_k of their sequence are never to be read: they keep their poison.
  std::vector<bool> beyond_used(total_k, false);
  for (int b = 0; b < p.batch(); ++b) {
    const std::int64_t start = p.k_start(b);
    for (int j = p.keys_used(b); j < p.seqlens_k[b]; ++j) beyond_used[start + j] = true;
  }
  write_operand(t.q, t.q_layout, p.q, total_q, H, D, {});
  write_operand(t.k, t.k_layout, p.k, total_k, Hk, D, beyond_used);
  write_operand(t.v, t.k_layout, p.v, total_k, Hk, Dv, beyond_used);

  if (c.alibi) {
    const int B = p.batch();
    t.alibi_slopes = HostTensor::contiguous(DType::fp32, {B, H});
    Rng rng(c.seed, kSlopes);
    for (int i = 0; i < B * H; ++i) {
      // Positive slopes spanning the usual 2^-8 .. 2^-1 range of ALiBi's geometric sequence.
      const double slope = reference::round_to_fp32(
          std::ldexp(1.0, -1 - static_cast<int>(8 * rng.uniform())) * (0.5 + rng.uniform()));
      p.alibi_slopes.push_back(slope);
      t.alibi_slopes.set(i, slope);
    }
  }

  if (op == Op::backward) {
    if (varlen) {
      t.dout = make_tensor(c.strided, dtype, {t.q.shape(0), H, Dv});
      t.dq = make_tensor(c.strided, dtype, {t.q.shape(0), H, D});
      t.dk = make_tensor(c.strided, dtype, {t.k.shape(0), Hk, D});
      t.dv = make_tensor(c.strided, dtype, {t.k.shape(0), Hk, Dv});
    } else {
      t.dout = make_tensor(c.strided, dtype, {c.batch, c.seqlen_q, H, Dv});
      t.dq = make_tensor(c.strided, dtype, {c.batch, c.seqlen_q, H, D});
      t.dk = make_tensor(c.strided, dtype, {c.batch, c.seqlen_k, Hk, D});
      t.dv = make_tensor(c.strided, dtype, {c.batch, c.seqlen_k, Hk, Dv});
    }
    t.dout_values = random_values(total_q * H * Dv, Rng(c.seed, kDout), scale, precision);
    write_operand(t.dout, t.q_layout, t.dout_values, total_q, H, Dv, {});
  }
  return t;
}

std::vector<double> read_operand(const HostTensor& t, const TokenLayout& layout, std::int64_t tokens,
                                 int heads, int cols) {
  std::vector<double> values(tokens * heads * cols);
  for (std::int64_t token = 0; token < tokens; ++token) {
    for (int h = 0; h < heads; ++h) {
      for (int c = 0; c < cols; ++c)
        values[(token * heads + h) * cols + c] = t.get(layout.offset(t, token, h, c));
    }
  }
  return values;
}

std::vector<double> read_lse(const HostTensor& lse, const TokenLayout& layout, std::int64_t tokens,
                             int heads) {
  std::vector<double> values(tokens * heads);
  for (std::int64_t token = 0; token < tokens; ++token) {
    for (int h = 0; h < heads; ++h) values[token * heads + h] = lse.get(layout.lse_offset(lse, token, h));
  }
  return values;
}

}  // namespace flashattn::testing
