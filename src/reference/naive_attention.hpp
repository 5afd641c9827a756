// flashattn reference — naive attention, one query row at a time, templated on the arithmetic type:
//   Real = double, exact storage: the fp64 oracle;
//   Real = float, storage rounded to the input dtype: the "base" of the tolerance rule (DESIGN.md §3),
//   i.e. what a correct kernel with fp32 accumulation and 16-bit operands computes.
// Every row materialises its scores against all kept keys, so nothing here resembles a tiled backend.
// Internal to src/reference: users call reference.hpp.
#pragma once

#include <algorithm>
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
      Row row;
      for (int i = 0; i < p_.seqlens_q[b]; ++i) {
        if (!softmax_row(b, h, i, row)) continue;
        const std::int64_t token = q_start_[b] + i;
        result.lse[token * p_.heads + h] = static_cast<double>(row.lse);
        lse_magnitude = std::max(lse_magnitude, row.lse_magnitude);
        std::vector<Real> out = output_row(b, h, row);
        for (int c = 0; c < p_.head_dim_v; ++c)
          result.out[(token * p_.heads + h) * p_.head_dim_v + c] = out[c];
        if constexpr (kTracksMagnitude) out_magnitude = std::max(out_magnitude, output_magnitude(b, h, row));
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
      std::vector<Real> dq(D);
      std::vector<double> dq_mag(D);
      Row row;
      for (int h = hk * group; h < (hk + 1) * group; ++h) {
        for (int i = 0; i < p_.seqlens_q[b]; ++i) {
          const std::int64_t token = q_start_[b] + i;
          if (!softmax_row(b, h, i, row)) continue;  // no key: zero gradients, already in place
          const double* dO = &dout[(token * p_.heads + h) * Dv];
          const double* q = &p_.q[(token * p_.heads + h) * D];
          const std::vector<Real> out = output_row(b, h, row);
          Real di = 0;  // rowsum(dO ∘ O), with O as stored
          double di_terms = 0;  // sum of |dO ∘ O|: the scale of di's rounding noise
          for (int c = 0; c < Dv; ++c) {
            di += static_cast<Real>(dO[c]) * out[c];
            if constexpr (kTracksMagnitude) di_terms += std::fabs(dO[c] * static_cast<double>(out[c]));
          }
          std::fill(dq.begin(), dq.end(), Real{0});
          std::fill(dq_mag.begin(), dq_mag.end(), 0.0);
          for (std::int64_t j = row.keys.first; j <= row.keys.last; ++j) {
            const std::int64_t n = j - row.keys.first;
            const double* k = key(b, hk, j);
            const double* v = value(b, hk, j);
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
              const double ds_noise = prob * (w * std::fabs(dp - di) + dp_terms + di_terms) * tanh_slope;
              for (int c = 0; c < Dv; ++c) dv_mag[j * Dv + c] += prob * w * std::fabs(dO[c]);
              for (int d = 0; d < D; ++d) {
                dq_mag[d] += ds_noise * std::fabs(k[d]);
                dk_mag[j * D + d] += ds_noise * std::fabs(q[d]);
              }
            }
          }
          for (int d = 0; d < D; ++d) {
            result.dq[(token * p_.heads + h) * D + d] = storage_(scale * dq[d]);
            dq_magnitude = std::max(dq_magnitude, scale * dq_mag[d]);
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
    std::vector<Real> scores;  ///< s_j after softcap and ALiBi, j = keys.first + index.
    std::vector<Real> tanhs;   ///< tanh(raw_j / softcap) when softcap is on (for its derivative).
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

  /// DESIGN.md §1 steps 1-4 for row i of (sequence b, head h); false when the row keeps no key.
  bool softmax_row(int b, int h, int i, Row& row) const {
    const int D = p_.head_dim;
    const int seqlen_q = p_.seqlens_q[b], seqlen_k = p_.keys_used(b);
    row.keys = kept_keys(p_, i, seqlen_q, seqlen_k);
    if (row.keys.empty()) return false;
    const int hk = h / (p_.heads / p_.heads_kv);
    const double* q = &p_.q[((q_start_[b] + i) * p_.heads + h) * D];
    const Real scale = static_cast<Real>(p_.resolved_scale());
    const Real softcap = static_cast<Real>(p_.softcap);
    const Real slope =
        p_.alibi_slopes.empty() ? Real{0} : static_cast<Real>(p_.alibi_slopes[b * p_.heads + h]);
    const std::int64_t diagonal = i + seqlen_k - seqlen_q;
    const std::int64_t count = row.keys.last - row.keys.first + 1;
    row.scores.resize(count);
    row.tanhs.resize(count);
    if constexpr (kTracksMagnitude) row.exponent_noise.resize(count);
    row.lse_magnitude = 0;
    for (std::int64_t n = 0; n < count; ++n) {
      const std::int64_t j = row.keys.first + n;
      const double* k = key(b, hk, j);
      Real dot = 0;
      double dot_magnitude = 0;
      for (int d = 0; d < D; ++d) {
        dot += static_cast<Real>(q[d]) * static_cast<Real>(k[d]);
        if constexpr (kTracksMagnitude) dot_magnitude += std::fabs(q[d] * k[d]);
      }
      Real s = scale * dot;
      if (p_.softcap > 0) {
        row.tanhs[n] = std::tanh(s / softcap);
        s = softcap * row.tanhs[n];
      }
      const Real distance = static_cast<Real>(diagonal > j ? diagonal - j : j - diagonal);
      s -= slope * distance;
      row.scores[n] = s;
      if constexpr (kTracksMagnitude) {
        row.exponent_noise[n] = p_.resolved_scale() * dot_magnitude + slope * distance;
        row.lse_magnitude = std::max(row.lse_magnitude, row.exponent_noise[n]);
      }
    }
    row.max = *std::max_element(row.scores.begin(), row.scores.end());
    row.sum = 0;
    for (Real s : row.scores) row.sum += std::exp(s - row.max);
    row.lse = row.max + std::log(row.sum);
    row.lse_magnitude = std::max(row.lse_magnitude, std::fabs(static_cast<double>(row.lse)));
    if constexpr (kTracksMagnitude) {
      for (double& w : row.exponent_noise) w += 1.0 + std::fabs(row.lse);
    }
    return true;
  }

  /// out_i as stored: sum_j stored(exp(s_j - max)) v_j / sum, then stored. P is rounded before it is
  /// normalised, as a kernel does it (the row sum comes from the unrounded P).
  std::vector<Real> output_row(int b, int h, const Row& row) const {
    const int Dv = p_.head_dim_v;
    const int hk = h / (p_.heads / p_.heads_kv);
    std::vector<Real> acc(Dv, Real{0});
    for (std::int64_t j = row.keys.first; j <= row.keys.last; ++j) {
      const Real weight = stored(std::exp(row.scores[j - row.keys.first] - row.max));
      const double* v = value(b, hk, j);
      for (int c = 0; c < Dv; ++c) acc[c] += weight * static_cast<Real>(v[c]);
    }
    for (Real& x : acc) x = stored(x / row.sum);
    return acc;
  }

  /// max_c sum_j P_j w_j |v_jc| (w_j = exponent_noise): the scale of out's rounding noise.
  double output_magnitude(int b, int h, const Row& row) const {
    const int Dv = p_.head_dim_v;
    const int hk = h / (p_.heads / p_.heads_kv);
    std::vector<double> acc(Dv, 0.0);
    for (std::int64_t j = row.keys.first; j <= row.keys.last; ++j) {
      const double prob = std::exp(static_cast<double>(row.scores[j - row.keys.first] - row.lse));
      const double* v = value(b, hk, j);
      const double w = row.exponent_noise[j - row.keys.first];
      for (int c = 0; c < Dv; ++c) acc[c] += prob * w * std::fabs(v[c]);
    }
    return acc.empty() ? 0.0 : *std::max_element(acc.begin(), acc.end());
  }

  const Problem& p_;
  std::vector<std::int64_t> q_start_, k_start_;  ///< First row of each sequence (hoisted: O(B) each).
  Storage storage_;
};

}  // namespace flashattn::reference::detail
