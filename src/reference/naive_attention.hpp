// flashattn reference — naive attention, row by row, templated on the arithmetic type:
//   Real = double, exact storage: the fp64 oracle;
//   Real = float, storage rounded to the input dtype: the "base" of the tolerance rule (DESIGN.md §3),
//   i.e. what a correct kernel with fp32 accumulation and 16-bit operands computes.
// Every row materialises its scores against all kept keys, so nothing here resembles a tiled backend.
// Internal to src/reference: users call reference.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "reference/problem.hpp"
#include "reference/rounding.hpp"

namespace flashattn::reference::detail {

/// What the computation keeps in the input dtype, as the GPU kernels do: P before P·V (forward) and
/// before Pᵀ·dO (backward), dS before dS·K and dSᵀ·Q, and every output. The oracle keeps all exact.
struct Storage {
  bool rounds = false;
  Precision precision = Precision::fp32;
  double operator()(double x) const { return rounds ? round_to(precision, x) : x; }
};

/// Keys [first, last] kept by query row i of a sequence (first > last when none): DESIGN.md §1 step 3
/// with offset = seqlen_k - seqlen_q, -1 meaning an unbounded side and causal meaning right = 0.
struct KeyRange {
  std::int64_t first = 0;
  std::int64_t last = -1;
  bool empty() const { return first > last; }
  bool contains(std::int64_t j) const { return first <= j && j <= last; }
};

inline KeyRange kept_keys(const Problem& p, std::int64_t i, std::int64_t seqlen_q, std::int64_t seqlen_k) {
  const std::int64_t diagonal = i + seqlen_k - seqlen_q;
  const int right = p.causal ? 0 : p.window_right;
  KeyRange range;
  range.first = p.window_left < 0 ? 0 : std::max<std::int64_t>(0, diagonal - p.window_left);
  range.last = right < 0 ? seqlen_k - 1 : std::min<std::int64_t>(seqlen_k - 1, diagonal + right);
  return range;
}

template <class Real>
class NaiveAttention {
  /// Magnitudes (sums of |terms|, the noise scale of the tolerance rule) are the oracle's business only.
  static constexpr bool kTracksMagnitude = std::is_same_v<Real, double>;
  /// Query rows taken together, key by key (softmax_rows, output_rows and the backward's key loop): 8 rows
  /// of Q (16 KB at D = 256) and a key's row stay in the L1 cache.
  static constexpr int kRowBlock = 8;

 public:
  NaiveAttention(const Problem& problem, Storage storage) : p_(problem), storage_(storage) {
    for (int b = 0; b < p_.batch(); ++b) {
      q_start_.push_back(p_.q_start(b));
      k_start_.push_back(p_.k_start(b));
    }
  }

  ForwardResult forward() const {
    ForwardResult result;
    result.out.assign(p_.total_q() * p_.heads * p_.head_dim_v, 0.0);
    result.lse.assign(p_.total_q() * p_.heads, -std::numeric_limits<double>::infinity());
    double out_magnitude = 0, lse_magnitude = 0;
    const int tasks = p_.batch() * p_.heads;
#pragma omp parallel for schedule(dynamic) reduction(max : out_magnitude, lse_magnitude)
    for (int task = 0; task < tasks; ++task) {
      const int b = task / p_.heads, h = task % p_.heads;
      std::array<Row, kRowBlock> rows;
      std::array<std::vector<Real>, kRowBlock> outs;
      std::array<double, kRowBlock> out_magnitudes{};
      for (int i0 = 0; i0 < p_.seqlens_q[b]; i0 += kRowBlock) {
        const int count = std::min(kRowBlock, p_.seqlens_q[b] - i0);
        softmax_rows(b, h, i0, count, rows.data());
        output_rows(b, h, count, rows.data(), outs.data());
        if constexpr (kTracksMagnitude) output_magnitudes(b, h, count, rows.data(), out_magnitudes.data());
        for (int r = 0; r < count; ++r) {
          if (rows[r].keys.empty()) continue;
          const std::int64_t token = q_start_[b] + i0 + r;
          result.lse[token * p_.heads + h] = static_cast<double>(rows[r].lse);
          lse_magnitude = std::max(lse_magnitude, rows[r].lse_magnitude);
          for (int c = 0; c < p_.head_dim_v; ++c)
            result.out[(token * p_.heads + h) * p_.head_dim_v + c] = outs[r][c];
          if constexpr (kTracksMagnitude) out_magnitude = std::max(out_magnitude, out_magnitudes[r]);
        }
      }
    }
    result.out_magnitude = out_magnitude;
    result.lse_magnitude = lse_magnitude;
    return result;
  }

  /// Gradients for `dout` (total_q, H, Dv), recomputing the forward of each row (its own out and lse).
  BackwardResult backward(const std::vector<double>& dout) const {
    BackwardResult result;
    const int D = p_.head_dim, Dv = p_.head_dim_v;
    result.dq.assign(p_.total_q() * p_.heads * D, 0.0);
    result.dk.assign(p_.total_k() * p_.heads_kv * D, 0.0);
    result.dv.assign(p_.total_k() * p_.heads_kv * Dv, 0.0);
    double dq_magnitude = 0, dk_magnitude = 0, dv_magnitude = 0;
    const int group = p_.heads / p_.heads_kv;
    const Real scale = static_cast<Real>(p_.resolved_scale());
    // One task per (sequence, kv head) owns its dk/dv rows and the dq rows of its query heads: no races,
    // and a fixed summation order.
    const int tasks = p_.batch() * p_.heads_kv;
#pragma omp parallel for schedule(dynamic) reduction(max : dq_magnitude, dk_magnitude, dv_magnitude)
    for (int task = 0; task < tasks; ++task) {
      const int b = task / p_.heads_kv, hk = task % p_.heads_kv;
      const int keys = p_.keys_used(b);
      std::vector<Real> dk(std::int64_t{keys} * D, 0), dv(std::int64_t{keys} * Dv, 0);
      std::vector<double> dk_mag(kTracksMagnitude ? dk.size() : 0, 0.0);
      std::vector<double> dv_mag(kTracksMagnitude ? dv.size() : 0, 0.0);
      // Rows in blocks, key by key across a block (as the forward): a key's K, V, dK and dV rows are
      // touched once per block. Every sum keeps the order of one row at a time, rows in turn: dq over
      // increasing keys, dk and dv over (head, row) pairs in increasing order, so the results are bit for
      // bit the same.
      std::array<Row, kRowBlock> rows;
      std::array<std::vector<Real>, kRowBlock> outs, dqs;
      std::array<std::vector<double>, kRowBlock> dq_mags;
      std::array<Real, kRowBlock> dis{};         // rowsum(dO ∘ O), with O as stored
      std::array<double, kRowBlock> di_terms{};  // sum of |dO ∘ O|: the scale of di's rounding noise
      for (int h = hk * group; h < (hk + 1) * group; ++h) {
        for (int i0 = 0; i0 < p_.seqlens_q[b]; i0 += kRowBlock) {
          const int count = std::min(kRowBlock, p_.seqlens_q[b] - i0);
          softmax_rows(b, h, i0, count, rows.data());  // a row without keys: zero gradients, in place
          output_rows(b, h, count, rows.data(), outs.data());
          // First element of row r's (token, head h) in a (total_q, H, width) tensor.
          const auto row_start = [&](int r, std::int64_t width) {
            return ((q_start_[b] + i0 + r) * p_.heads + h) * width;
          };
          for (int r = 0; r < count; ++r) {
            if (rows[r].keys.empty()) continue;
            const double* dO = &dout[row_start(r, Dv)];
            dis[r] = 0;
            di_terms[r] = 0;
            for (int c = 0; c < Dv; ++c) {
              dis[r] += static_cast<Real>(dO[c]) * outs[r][c];
              if constexpr (kTracksMagnitude)
                di_terms[r] += std::fabs(dO[c] * static_cast<double>(outs[r][c]));
            }
            dqs[r].assign(D, Real{0});
            dq_mags[r].assign(D, 0.0);
          }
          const KeyRange block_keys = keys_of(count, rows.data());
          for (std::int64_t j = block_keys.first; j <= block_keys.last; ++j) {
            const double* k = key(b, hk, j);
            const double* v = value(b, hk, j);
            for (int r = 0; r < count; ++r) {
              const Row& row = rows[r];
              if (!row.keys.contains(j)) continue;
              const std::int64_t n = j - row.keys.first;
              const double* dO = &dout[row_start(r, Dv)];
              const double* q = &p_.q[row_start(r, D)];
              std::vector<Real>& dq = dqs[r];
              std::vector<double>& dq_mag = dq_mags[r];
              const Real di = dis[r];
              const Real prob = std::exp(row.scores[n] - row.lse);
              Real dp = 0;
              double dp_terms = 0;  // sum of |dO ∘ v|: the scale of dp's rounding noise
              for (int c = 0; c < Dv; ++c) {
                dp += static_cast<Real>(dO[c]) * static_cast<Real>(v[c]);
                if constexpr (kTracksMagnitude) dp_terms += std::fabs(dO[c] * v[c]);
              }
              const Real tanh_slope = p_.softcap > 0 ? Real{1} - row.tanhs[n] * row.tanhs[n] : Real{1};
              const Real ds = prob * (dp - di) * tanh_slope;
              const Real prob_stored = stored(prob), ds_stored = stored(ds);
              for (int c = 0; c < Dv; ++c) dv[j * Dv + c] += prob_stored * static_cast<Real>(dO[c]);
              for (int d = 0; d < D; ++d) {
                dq[d] += ds_stored * static_cast<Real>(k[d]);
                dk[j * D + d] += ds_stored * static_cast<Real>(q[d]);
              }
              if constexpr (kTracksMagnitude) {
                // P carries relative noise ε·w (w = row.exponent_noise), dP - D the noise of the dot
                // products' terms (their absolute sums, not |dP| and |D|, which cancellation can make ~0:
                // a row that sees one key has P = 1 and dP = D exactly, so dS is rounding noise alone).
                const double w = row.exponent_noise[n];
                const double ds_noise = prob * (w * std::fabs(dp - di) + dp_terms + di_terms[r]) * tanh_slope;
                for (int c = 0; c < Dv; ++c) dv_mag[j * Dv + c] += prob * w * std::fabs(dO[c]);
                for (int d = 0; d < D; ++d) {
                  dq_mag[d] += ds_noise * std::fabs(k[d]);
                  dk_mag[j * D + d] += ds_noise * std::fabs(q[d]);
                }
              }
            }
          }
          for (int r = 0; r < count; ++r) {
            if (rows[r].keys.empty()) continue;
            for (int d = 0; d < D; ++d) {
              result.dq[row_start(r, D) + d] = storage_(scale * dqs[r][d]);
              dq_magnitude = std::max(dq_magnitude, scale * dq_mags[r][d]);
            }
          }
        }
      }
      for (std::int64_t j = 0; j < keys; ++j) {
        const std::int64_t key_row = (k_start_[b] + j) * p_.heads_kv + hk;
        for (int d = 0; d < D; ++d) result.dk[key_row * D + d] = storage_(scale * dk[j * D + d]);
        for (int c = 0; c < Dv; ++c) result.dv[key_row * Dv + c] = storage_(dv[j * Dv + c]);
      }
      if constexpr (kTracksMagnitude) {
        for (double m : dk_mag) dk_magnitude = std::max(dk_magnitude, scale * m);
        for (double m : dv_mag) dv_magnitude = std::max(dv_magnitude, m);
      }
    }
    result.dq_magnitude = dq_magnitude;
    result.dk_magnitude = dk_magnitude;
    result.dv_magnitude = dv_magnitude;
    return result;
  }

 private:
  /// The softmax of one query row: scores of the kept keys and their statistics.
  struct Row {
    KeyRange keys;
    const double* q = nullptr;  ///< The row of Q.
    Real slope = 0;             ///< Its ALiBi slope (0 without).
    std::int64_t diagonal = 0;  ///< The key its query aligns with (bottom-right): i + seqlen_k - seqlen_q.
    std::vector<Real> scores;   ///< s_j after softcap and ALiBi, j = keys.first + index.
    std::vector<Real> tanhs;    ///< tanh(raw_j / softcap) when softcap is on (for its derivative).
    Real max = 0;
    Real sum = 0;  ///< sum_j exp(s_j - max)
    Real lse = 0;
    double lse_magnitude = 0;  ///< Largest |term| the row's lse is made of.
    /// Per key: 1 + (sum of |terms| of s_j) + |lse|. exp(s_j - lse) is computed from numbers this large,
    /// so any float implementation's P_j carries relative noise of about ε times it; large logits make
    /// softmax ill-conditioned and this is where it shows. Tracked by the oracle only.
    std::vector<double> exponent_noise;
  };

  const double* key(int b, int hk, std::int64_t j) const {
    return &p_.k[((k_start_[b] + j) * p_.heads_kv + hk) * p_.head_dim];
  }
  const double* value(int b, int hk, std::int64_t j) const {
    return &p_.v[((k_start_[b] + j) * p_.heads_kv + hk) * p_.head_dim_v];
  }
  Real stored(Real x) const { return static_cast<Real>(storage_(static_cast<double>(x))); }

  /// DESIGN.md §1 steps 1-4 for rows [i0, i0 + count) of (sequence b, head h), count <= kRowBlock, into
  /// rows[0, count) (keys.empty() for a row that keeps none). Key by key across the rows: a key's row of K
  /// is read from memory once for all of them rather than once per row (a row alone streams its head's keys
  /// through the cache). Each row's own arithmetic is that of one row at a time, in the same order, so the
  /// results are bit for bit the same.
  void softmax_rows(int b, int h, int i0, int count, Row* rows) const {
    const int hk = h / (p_.heads / p_.heads_kv);
    for (int r = 0; r < count; ++r) begin_row(b, h, i0 + r, rows[r]);
    const KeyRange keys = keys_of(count, rows);
    for (std::int64_t j = keys.first; j <= keys.last; ++j) {
      const double* k = key(b, hk, j);
      for (int r = 0; r < count; ++r) {
        if (rows[r].keys.contains(j)) score_key(k, j, rows[r]);
      }
    }
    for (int r = 0; r < count; ++r) {
      if (!rows[r].keys.empty()) finish_row(rows[r]);
    }
  }

  /// Row i's kept keys (step 3; row.keys.empty() when it keeps none) and what its scores need.
  void begin_row(int b, int h, int i, Row& row) const {
    const int seqlen_q = p_.seqlens_q[b], seqlen_k = p_.keys_used(b);
    row.keys = kept_keys(p_, i, seqlen_q, seqlen_k);
    if (row.keys.empty()) return;
    row.q = &p_.q[((q_start_[b] + i) * p_.heads + h) * p_.head_dim];
    row.slope = p_.alibi_slopes.empty() ? Real{0} : static_cast<Real>(p_.alibi_slopes[b * p_.heads + h]);
    row.diagonal = i + seqlen_k - seqlen_q;
    const std::int64_t count = row.keys.last - row.keys.first + 1;
    row.scores.resize(count);
    row.tanhs.resize(count);
    if constexpr (kTracksMagnitude) row.exponent_noise.resize(count);
    row.lse_magnitude = 0;
  }

  /// Steps 1-2 for key j (its row of K at `k`) of the row: s_j after softcap and ALiBi.
  void score_key(const double* k, std::int64_t j, Row& row) const {
    const int D = p_.head_dim;
    const Real scale = static_cast<Real>(p_.resolved_scale());
    const Real softcap = static_cast<Real>(p_.softcap);
    const std::int64_t n = j - row.keys.first;
    Real dot = 0;
    double dot_magnitude = 0;
    for (int d = 0; d < D; ++d) {
      dot += static_cast<Real>(row.q[d]) * static_cast<Real>(k[d]);
      if constexpr (kTracksMagnitude) dot_magnitude += std::fabs(row.q[d] * k[d]);
    }
    Real s = scale * dot;
    if (p_.softcap > 0) {
      row.tanhs[n] = std::tanh(s / softcap);
      s = softcap * row.tanhs[n];
    }
    const Real distance = static_cast<Real>(row.diagonal > j ? row.diagonal - j : j - row.diagonal);
    s -= row.slope * distance;
    row.scores[n] = s;
    if constexpr (kTracksMagnitude) {
      row.exponent_noise[n] = p_.resolved_scale() * dot_magnitude + row.slope * distance;
      row.lse_magnitude = std::max(row.lse_magnitude, row.exponent_noise[n]);
    }
  }

  /// Step 4 once every kept key is scored: the row's max, sum and lse.
  void finish_row(Row& row) const {
    row.max = *std::max_element(row.scores.begin(), row.scores.end());
    row.sum = 0;
    for (Real s : row.scores) row.sum += std::exp(s - row.max);
    row.lse = row.max + std::log(row.sum);
    row.lse_magnitude = std::max(row.lse_magnitude, std::fabs(static_cast<double>(row.lse)));
    if constexpr (kTracksMagnitude) {
      for (double& w : row.exponent_noise) w += 1.0 + std::fabs(row.lse);
    }
  }

  /// out of rows[0, count) (softmax_rows'; nothing for a row without keys) into outs[0, count), as stored:
  /// sum_j stored(exp(s_j - max)) v_j / sum, then stored. P is rounded before it is normalised, as a kernel
  /// does it (the row sum comes from the unrounded P). Key by key across the rows, as softmax_rows, each
  /// row's sums over increasing keys.
  void output_rows(int b, int h, int count, const Row* rows, std::vector<Real>* outs) const {
    const int Dv = p_.head_dim_v;
    const int hk = h / (p_.heads / p_.heads_kv);
    const KeyRange keys = keys_of(count, rows);
    for (int r = 0; r < count; ++r) outs[r].assign(Dv, Real{0});
    for (std::int64_t j = keys.first; j <= keys.last; ++j) {
      const double* v = value(b, hk, j);
      for (int r = 0; r < count; ++r) {
        const Row& row = rows[r];
        if (!row.keys.contains(j)) continue;
        const Real weight = stored(std::exp(row.scores[j - row.keys.first] - row.max));
        for (int c = 0; c < Dv; ++c) outs[r][c] += weight * static_cast<Real>(v[c]);
      }
    }
    for (int r = 0; r < count; ++r) {
      if (rows[r].keys.empty()) continue;
      for (Real& x : outs[r]) x = stored(x / rows[r].sum);
    }
  }

  /// For each of rows[0, count): max_c sum_j P_j w_j |v_jc| (w_j = exponent_noise), the scale of its out's
  /// rounding noise, into magnitudes[r] (0 for a row without keys). Key by key across the rows.
  void output_magnitudes(int b, int h, int count, const Row* rows, double* magnitudes) const {
    const int Dv = p_.head_dim_v;
    const int hk = h / (p_.heads / p_.heads_kv);
    const KeyRange keys = keys_of(count, rows);
    std::array<std::vector<double>, kRowBlock> acc;
    for (int r = 0; r < count; ++r) acc[r].assign(Dv, 0.0);
    for (std::int64_t j = keys.first; j <= keys.last; ++j) {
      const double* v = value(b, hk, j);
      for (int r = 0; r < count; ++r) {
        const Row& row = rows[r];
        if (!row.keys.contains(j)) continue;
        const double prob = std::exp(static_cast<double>(row.scores[j - row.keys.first] - row.lse));
        const double w = row.exponent_noise[j - row.keys.first];
        for (int c = 0; c < Dv; ++c) acc[r][c] += prob * w * std::fabs(v[c]);
      }
    }
    for (int r = 0; r < count; ++r) {
      magnitudes[r] = acc[r].empty() ? 0.0 : *std::max_element(acc[r].begin(), acc[r].end());
    }
  }

  /// The keys of rows[0, count) together: from the least first to the greatest last (first > last when no
  /// row keeps a key).
  static KeyRange keys_of(int count, const Row* rows) {
    KeyRange keys{std::numeric_limits<std::int64_t>::max(), -1};
    for (int r = 0; r < count; ++r) {
      if (rows[r].keys.empty()) continue;
      keys.first = std::min(keys.first, rows[r].keys.first);
      keys.last = std::max(keys.last, rows[r].keys.last);
    }
    return keys;
  }

  const Problem& p_;
  std::vector<std::int64_t> q_start_, k_start_;  ///< First row of each sequence (hoisted: O(B) each).
  Storage storage_;
};

}  // namespace flashattn::reference::detail
