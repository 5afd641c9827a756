// flashattn — standard (unfused) attention on the CPU, the way a framework runs it without a fused kernel:
//   S = scale * Q K^T      one sgemm per (batch, head), all S kept at once (B * H * Sq * Sk floats)
//   P = softmax(mask(S))   row by row, with softcap and ALiBi applied to S first
//   O = P V                one sgemm per (batch, head)
// The backward materialises P and dS likewise. Memory that grows with Sq * Sk is the point of the
// comparison with the flash backend, so nothing here is tiled.
#include "baseline/standard_attention.hpp"

#include <cblas.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "baseline/fp32_operand.hpp"

namespace flashattn::baseline {
namespace {

// C (m x n) = alpha * op(A) op(B) + beta * C, row-major. An empty inner dimension is settled here rather
// than left to BLAS: C = beta * C, so a NaN-poisoned output is still overwritten with zeros.
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, std::int64_t lda,
          const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 1.0f) return;
    for (int i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0f);
    return;
  }
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

// Where the (Sq_b, Sk_b) score matrix of each (b, h) lives in one buffer holding all of them.
class ScoreBlocks {
 public:
  explicit ScoreBlocks(const ForwardParams& params)
      : heads_(params.heads), batch_offset_(params.batch + 1, 0) {
    for (int b = 0; b < params.batch; ++b) {
      const std::int64_t block = std::int64_t{params.seqlen_q(b)} * params.seqlen_k(b);
      batch_offset_[b + 1] = batch_offset_[b] + heads_ * block;
    }
  }
  std::int64_t total() const { return batch_offset_.back(); }
  std::int64_t offset(int b, int h, int seqlen_q, int seqlen_k) const {
    return batch_offset_[b] + std::int64_t{h} * seqlen_q * seqlen_k;
  }

 private:
  int heads_;
  std::vector<std::int64_t> batch_offset_;
};

// A buffer of `count` floats left uninitialised (sgemm writes every element), or an error status.
std::unique_ptr<float[]> allocate(std::int64_t count, Status& status) {
  try {
    return std::make_unique_for_overwrite<float[]>(
        static_cast<std::size_t>(std::max<std::int64_t>(count, 1)));
  } catch (const std::bad_alloc&) {
    status = Status(StatusCode::internal, "standard attention: cannot allocate " + std::to_string(count * 4) +
                                              " bytes for the score matrices");
    return nullptr;
  }
}

// exp(x) in a form the compiler vectorises: frameworks evaluate softmax's exp with SIMD polynomials
// (PyTorch uses Sleef); a scalar std::exp call per score would make this peer look slower than it is.
// exp(x) = 2^n exp(r), n = round(x log2 e), r = x - n ln 2 split in two for accuracy, exp(r) by its
// degree-7 Taylor polynomial (|r| <= ln2 / 2: truncation error below 1e-8 relative).
inline float vector_exp(float x) {
  x = std::clamp(x, -87.0f, 88.0f);           // 2^n stays a normal float.
  constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer.
  const float n = (x * 1.44269504f + kRoundMagic) - kRoundMagic;
  const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;
  float poly = 1.0f / 5040.0f;
  poly = poly * r + 1.0f / 720.0f;
  poly = poly * r + 1.0f / 120.0f;
  poly = poly * r + 1.0f / 24.0f;
  poly = poly * r + 1.0f / 6.0f;
  poly = poly * r + 0.5f;
  poly = poly * r + 1.0f;
  poly = poly * r + 1.0f;
  return poly * std::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);
}

// One query row's view of the semantics (DESIGN.md §1): which keys it keeps and each key's logit.
struct RowRule {
  int first;              // First kept key; first > last when the row keeps none.
  int last;               // Last kept key.
  std::int64_t diagonal;  // i + Sk - Sq: the key aligned with the row.
  float softcap;
  float slope;  // ALiBi slope of the head; 0 when off.

  RowRule(const ForwardParams& p, int b, int h, int i, int seqlen_q, int seqlen_k)
      : softcap(p.softcap), slope(p.alibi_slopes ? p.alibi_slopes[b * p.alibi_batch_stride + h] : 0.0f) {
    diagonal = std::int64_t{i} + seqlen_k - seqlen_q;
    first = static_cast<int>(std::clamp<std::int64_t>(diagonal - p.window_left, 0, seqlen_k));
    last = static_cast<int>(std::clamp<std::int64_t>(diagonal + p.window_right, -1, seqlen_k - 1));
  }
  bool empty() const { return first > last; }

  // logit = softcap(scaled score) - ALiBi bias; the two halves are apart so the common case (no softcap)
  // stays a vectorisable loop without a tanh call in it.
  float capped(float scaled) const { return softcap * std::tanh(scaled / softcap); }
  float bias(int j) const { return slope * static_cast<float>(std::abs(diagonal - j)); }
};

// Replaces a row of scaled scores with its softmax over the kept keys (0 elsewhere); returns the lse.
float softmax_row(float* row, int seqlen_k, const RowRule& rule) {
  std::fill(row, row + rule.first, 0.0f);
  std::fill(row + rule.last + 1, row + seqlen_k, 0.0f);
  if (rule.empty()) return -std::numeric_limits<float>::infinity();
  if (rule.softcap > 0.0f) {
    for (int j = rule.first; j <= rule.last; ++j) row[j] = rule.capped(row[j]);
  }
  float max = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : max)
  for (int j = rule.first; j <= rule.last; ++j) {
    row[j] -= rule.bias(j);
    max = std::max(max, row[j]);
  }
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int j = rule.first; j <= rule.last; ++j) {
    row[j] = vector_exp(row[j] - max);
    sum += row[j];
  }
  const float inv_sum = 1.0f / sum;
  for (int j = rule.first; j <= rule.last; ++j) row[j] *= inv_sum;
  return max + std::log(sum);
}

}  // namespace

Status standard_forward(const ForwardParams& p) {
  const int H = p.heads;
  const auto q = Fp32Operand::input(p, Side::query, p.q, p.q_strides, H, p.head_dim);
  const auto k = Fp32Operand::input(p, Side::key, p.k, p.k_strides, p.heads_kv, p.head_dim);
  const auto v = Fp32Operand::input(p, Side::key, p.v, p.v_strides, p.heads_kv, p.head_dim_v);
  const auto out = Fp32Operand::output(p, Side::query, p.out, p.out_strides, H, p.head_dim_v);
  const ScoreBlocks blocks(p);
  Status status;
  const auto scores = allocate(blocks.total(), status);
  if (!scores) return status;

  for (int b = 0; b < p.batch; ++b) {
    const int sq = p.seqlen_q(b), sk = p.seqlen_k(b);
    for (int h = 0; h < H; ++h) {
      gemm(false, true, sq, sk, p.head_dim, p.scale, q.at(b, h), q.ld(), k.at(b, p.kv_head(h)), k.ld(), 0.0f,
           scores.get() + blocks.offset(b, h, sq, sk), sk);
    }
  }

#pragma omp parallel
  for (int b = 0; b < p.batch; ++b) {
    const int sq = p.seqlen_q(b), sk = p.seqlen_k(b);
    for (int h = 0; h < H; ++h) {
      float* block = scores.get() + blocks.offset(b, h, sq, sk);
#pragma omp for schedule(static) nowait
      for (int i = 0; i < sq; ++i) {
        const float lse = softmax_row(block + std::int64_t{i} * sk, sk, RowRule(p, b, h, i, sq, sk));
        if (p.lse) p.lse[b * p.lse_batch_stride + h * p.lse_head_stride + p.q_start(b) + i] = lse;
      }
    }
  }

  for (int b = 0; b < p.batch; ++b) {
    const int sq = p.seqlen_q(b), sk = p.seqlen_k(b);
    for (int h = 0; h < H; ++h) {
      gemm(false, false, sq, p.head_dim_v, sk, 1.0f, scores.get() + blocks.offset(b, h, sq, sk), sk,
           v.at(b, p.kv_head(h)), v.ld(), 0.0f, out.at(b, h), out.ld());
    }
  }
  out.store();
  return Status::success();
}

Status standard_backward(const BackwardParams& p) {
  const int H = p.heads, Hk = p.heads_kv;
  const auto q = Fp32Operand::input(p, Side::query, p.q, p.q_strides, H, p.head_dim);
  const auto k = Fp32Operand::input(p, Side::key, p.k, p.k_strides, Hk, p.head_dim);
  const auto v = Fp32Operand::input(p, Side::key, p.v, p.v_strides, Hk, p.head_dim_v);
  const auto out = Fp32Operand::input(p, Side::query, p.out, p.out_strides, H, p.head_dim_v);
  const auto dout = Fp32Operand::input(p, Side::query, p.dout, p.dout_strides, H, p.head_dim_v);
  const auto dq = Fp32Operand::output(p, Side::query, p.dq, p.dq_strides, H, p.head_dim);
  const auto dk = Fp32Operand::output(p, Side::key, p.dk, p.dk_strides, Hk, p.head_dim);
  const auto dv = Fp32Operand::output(p, Side::key, p.dv, p.dv_strides, Hk, p.head_dim_v);
  const ScoreBlocks blocks(p);
  Status status;
  const auto probs = allocate(blocks.total(), status);  // S, then P in place.
  if (!probs) return status;
  const auto dscores = allocate(blocks.total(), status);  // dP = dO V^T, then dS in place.
  if (!dscores) return status;

  for (int b = 0; b < p.batch; ++b) {
    const int sq = p.seqlen_q(b), sk = p.seqlen_k(b);
    for (int h = 0; h < H; ++h) {
      const std::int64_t offset = blocks.offset(b, h, sq, sk);
      const int kvh = p.kv_head(h);
      gemm(false, true, sq, sk, p.head_dim, p.scale, q.at(b, h), q.ld(), k.at(b, kvh), k.ld(), 0.0f,
           probs.get() + offset, sk);
      gemm(false, true, sq, sk, p.head_dim_v, 1.0f, dout.at(b, h), dout.ld(), v.at(b, kvh), v.ld(), 0.0f,
           dscores.get() + offset, sk);
    }
  }

  // P = exp(logit - lse) from the forward's lse; dS = P * (dP - D) with D = rowsum(dO * O), which equals
  // rowsum(P * dP) and needs no second pass over the row; softcap's derivative is 1 - tanh^2.
#pragma omp parallel
  for (int b = 0; b < p.batch; ++b) {
    const int sq = p.seqlen_q(b), sk = p.seqlen_k(b);
    for (int h = 0; h < H; ++h) {
      const std::int64_t offset = blocks.offset(b, h, sq, sk);
#pragma omp for schedule(static) nowait
      for (int i = 0; i < sq; ++i) {
        float* prob = probs.get() + offset + std::int64_t{i} * sk;
        float* dscore = dscores.get() + offset + std::int64_t{i} * sk;
        const RowRule rule(p, b, h, i, sq, sk);
        const float lse = p.lse[b * p.lse_batch_stride + h * p.lse_head_stride + p.q_start(b) + i];
        const float* o_row = out.at(b, h) + std::int64_t{i} * out.ld();
        const float* do_row = dout.at(b, h) + std::int64_t{i} * dout.ld();
        float delta = 0.0f;
        for (int d = 0; d < p.head_dim_v; ++d) delta += o_row[d] * do_row[d];
        if (rule.empty() || std::isinf(lse)) {
          std::fill(prob, prob + sk, 0.0f);
          std::fill(dscore, dscore + sk, 0.0f);
          continue;
        }
        std::fill(prob, prob + rule.first, 0.0f);
        std::fill(prob + rule.last + 1, prob + sk, 0.0f);
        std::fill(dscore, dscore + rule.first, 0.0f);
        std::fill(dscore + rule.last + 1, dscore + sk, 0.0f);
        if (p.softcap > 0.0f) {
          for (int j = rule.first; j <= rule.last; ++j) {
            const float t = std::tanh(prob[j] / p.softcap);
            const float pj = vector_exp(p.softcap * t - rule.bias(j) - lse);
            dscore[j] = pj * (dscore[j] - delta) * (1.0f - t * t);
            prob[j] = pj;
          }
        } else {
#pragma omp simd
          for (int j = rule.first; j <= rule.last; ++j) {
            const float pj = vector_exp(prob[j] - rule.bias(j) - lse);
            dscore[j] = pj * (dscore[j] - delta);
            prob[j] = pj;
          }
        }
      }
    }
  }

  // dQ = scale dS K per query head; dK = scale dS^T Q and dV = P^T dO summed over the query heads that
  // share a kv head (the first head of the group overwrites, the others accumulate).
  const int group = H / Hk;
  for (int b = 0; b < p.batch; ++b) {
    const int sq = p.seqlen_q(b), sk = p.seqlen_k(b);
    for (int h = 0; h < H; ++h) {
      const std::int64_t offset = blocks.offset(b, h, sq, sk);
      const int kvh = p.kv_head(h);
      const float beta = h % group == 0 ? 0.0f : 1.0f;
      gemm(false, false, sq, p.head_dim, sk, p.scale, dscores.get() + offset, sk, k.at(b, kvh), k.ld(), 0.0f,
           dq.at(b, h), dq.ld());
      gemm(true, false, sk, p.head_dim, sq, p.scale, dscores.get() + offset, sk, q.at(b, h), q.ld(), beta,
           dk.at(b, kvh), dk.ld());
      gemm(true, false, sk, p.head_dim_v, sq, 1.0f, probs.get() + offset, sk, dout.at(b, h), dout.ld(), beta,
           dv.at(b, kvh), dv.ld());
    }
    // Keys stored past seqused_k are not attended: their gradients are zero.
    for (int kvh = 0; kvh < Hk; ++kvh) {
      for (int j = sk; j < dk.rows(b); ++j) {
        std::fill_n(dk.at(b, kvh) + j * dk.ld(), p.head_dim, 0.0f);
        std::fill_n(dv.at(b, kvh) + j * dv.ld(), p.head_dim_v, 0.0f);
      }
    }
  }
  dq.store();
  dk.store();
  dv.store();
  return Status::success();
}

}  // namespace flashattn::baseline
