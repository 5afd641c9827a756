// The correctness machinery itself: the oracle against hand-computed values and finite differences, and
// the tolerance rule against outputs that must pass and outputs that must fail. A rule that cannot fail
// tests nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "reference/reference.hpp"
#include "testing/case_tensors.hpp"
#include "testing/check.hpp"
#include "testing/host_tensor.hpp"
#include "testing/random.hpp"
#include "testing/tolerance.hpp"

namespace flashattn::testing {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// Sq = 1, Sk = 2, D = Dv = 1, scale 1: q = 1, k = (1, 2), v = (3, 5), so s = (1, 2),
// P = (e, e²) / (e + e²) and out = (3e + 5e²) / (e + e²).
reference::Problem tiny_problem() {
  reference::Problem p;
  p.seqlens_q = {1};
  p.seqlens_k = {2};
  p.q = {1.0};
  p.k = {1.0, 2.0};
  p.v = {3.0, 5.0};
  p.scale = 1.0;
  return p;
}

TEST(Oracle, TinyForwardByHand) {
  const double e = std::exp(1.0), e2 = std::exp(2.0);
  const reference::ForwardResult f = reference::forward(tiny_problem());
  EXPECT_NEAR(f.out[0], (3 * e + 5 * e2) / (e + e2), 1e-15);
  EXPECT_NEAR(f.lse[0], std::log(e + e2), 1e-15);
}

TEST(Oracle, TinyBackwardByHand) {
  // dout = 1: dP = v, D = out, dS_j = P_j (v_j - out); dq = sum_j dS_j k_j, dk_j = dS_j q, dv_j = P_j.
  const double e = std::exp(1.0), e2 = std::exp(2.0);
  const double p0 = e / (e + e2), p1 = e2 / (e + e2), out = 3 * p0 + 5 * p1;
  const double ds0 = p0 * (3 - out), ds1 = p1 * (5 - out);
  const reference::BackwardResult g = reference::backward(tiny_problem(), {1.0});
  EXPECT_NEAR(g.dq[0], ds0 * 1 + ds1 * 2, 1e-15);
  EXPECT_NEAR(g.dk[0], ds0, 1e-15);
  EXPECT_NEAR(g.dk[1], ds1, 1e-15);
  EXPECT_NEAR(g.dv[0], p0, 1e-15);
  EXPECT_NEAR(g.dv[1], p1, 1e-15);
}

// The oracle and the base score rows in blocks that share each key's load (reference/naive_attention.hpp):
// a row's out, lse and dq must be bit for bit those of the row computed alone. Causal (bottom-right), so row
// i of (Sq, Sk) keeps keys [d - window_left, d], d = i + Sk - Sq, as the one row of (1, d + 1) does on the
// same first keys, at the same ALiBi distances. 19 rows: two whole blocks of 8 and a partial one, whose
// rows keep key ranges of different starts and ends.
TEST(Oracle, RowsScoredTogetherEqualRowsAlone) {
  constexpr int kSq = 19, kSk = 40, kH = 4, kHk = 2, kD = 24, kDv = 16;
  reference::Problem p;
  p.seqlens_q = {kSq};
  p.seqlens_k = {kSk};
  p.heads = kH;
  p.heads_kv = kHk;
  p.head_dim = kD;
  p.head_dim_v = kDv;
  p.causal = true;
  p.window_left = 25;
  p.softcap = 15.0;
  p.alibi_slopes = {0.5, 0.25, 0.125, 0.0625};
  p.q = normal_draws(Rng(31, 1), kSq * kH * kD);
  p.k = normal_draws(Rng(31, 2), kSk * kHk * kD);
  p.v = normal_draws(Rng(31, 3), kSk * kHk * kDv);
  const std::vector<double> dout = normal_draws(Rng(31, 4), kSq * kH * kDv);
  const reference::ForwardResult together = reference::forward(p);
  const reference::ForwardResult base = reference::base_forward(p, reference::Precision::bf16);
  const reference::BackwardResult grads = reference::backward(p, dout);
  for (int i = 0; i < kSq; ++i) {
    const int keys = i + kSk - kSq + 1;
    reference::Problem alone = p;
    alone.seqlens_q = {1};
    alone.seqlens_k = {keys};
    alone.q.assign(p.q.begin() + i * kH * kD, p.q.begin() + (i + 1) * kH * kD);
    alone.k.resize(static_cast<std::size_t>(keys) * kHk * kD);
    alone.v.resize(static_cast<std::size_t>(keys) * kHk * kDv);
    const std::vector<double> alone_dout(dout.begin() + i * kH * kDv, dout.begin() + (i + 1) * kH * kDv);
    const reference::ForwardResult f = reference::forward(alone);
    const reference::ForwardResult fb = reference::base_forward(alone, reference::Precision::bf16);
    const reference::BackwardResult g = reference::backward(alone, alone_dout);
    for (int h = 0; h < kH; ++h) {
      EXPECT_EQ(f.lse[h], together.lse[i * kH + h]) << "row " << i << " head " << h;
      for (int c = 0; c < kDv; ++c) {
        EXPECT_EQ(f.out[h * kDv + c], together.out[(i * kH + h) * kDv + c]) << "row " << i << " head " << h;
        EXPECT_EQ(fb.out[h * kDv + c], base.out[(i * kH + h) * kDv + c]) << "row " << i << " head " << h;
      }
      for (int d = 0; d < kD; ++d) {
        EXPECT_EQ(g.dq[h * kD + d], grads.dq[(i * kH + h) * kD + d]) << "row " << i << " head " << h;
      }
    }
  }
}

// A row that sees one key has P = 1 and dP = D exactly, so its dq and dk are zero and a kernel's are pure
// rounding noise of dP - D. That noise scales with the dot products' absolute terms, here |1·1| + |-1·1|
// for each of dP = dO·v and D = dO·out, even though both sums are 0.
TEST(Oracle, GradientNoiseOfAOneKeyRowScalesWithTheDotProductsTerms) {
  reference::Problem p;
  p.seqlens_q = {1};
  p.seqlens_k = {1};
  p.head_dim = p.head_dim_v = 2;
  p.q = {1.0, 2.0};
  p.k = {0.5, -3.0};
  p.v = {1.0, 1.0};
  const reference::BackwardResult g = reference::backward(p, {1.0, -1.0});
  const double scale = 1.0 / std::sqrt(2.0);
  EXPECT_EQ(g.dq[0], 0.0);
  EXPECT_EQ(g.dk[1], 0.0);
  EXPECT_DOUBLE_EQ(g.dq_magnitude, scale * (2 + 2) * 3.0);  // max |k|
  EXPECT_DOUBLE_EQ(g.dk_magnitude, scale * (2 + 2) * 2.0);  // max |q|
}

TEST(Oracle, TinyAlibiSoftcapAndMaskByHand) {
  reference::Problem p = tiny_problem();
  // ALiBi: the diagonal of the single row is key 1 (offset 1), so key 0 pays slope * 1.
  p.alibi_slopes = {0.5};
  EXPECT_NEAR(reference::forward(p).lse[0], std::log(std::exp(0.5) + std::exp(2.0)), 1e-15);
  // Softcap 1: s = tanh(s).
  p.alibi_slopes.clear();
  p.softcap = 1.0;
  EXPECT_NEAR(reference::forward(p).lse[0], std::log(std::exp(std::tanh(1.0)) + std::exp(std::tanh(2.0))),
              1e-15);
  // A window of (0, -1) keeps keys from the diagonal on: only key 1, so out = v_1 exactly.
  p.softcap = 0;
  p.window_left = 0;
  EXPECT_EQ(reference::forward(p).out[0], 5.0);
  // Causal with more queries than keys: the first row of two keeps nothing.
  reference::Problem masked = tiny_problem();
  masked.seqlens_q = {3};
  masked.q = {1.0, 1.0, 1.0};
  masked.causal = true;
  const reference::ForwardResult f = reference::forward(masked);
  EXPECT_EQ(f.lse[0], kMinusInf);
  EXPECT_EQ(f.out[0], 0.0);
  EXPECT_EQ(f.out[1], 3.0);
  EXPECT_TRUE(std::isfinite(f.lse[2]));
}

// The analytic backward against central differences of L = <out, dout>, with every option on at once.
TEST(Oracle, BackwardMatchesFiniteDifferences) {
  Case c;
  c.dtype = DType::fp32;
  c.heads = 4;
  c.heads_kv = 2;
  c.head_dim = 3;
  c.head_dim_v = 2;
  c.seqlens_q = {3, 0, 4};
  c.seqlens_k = {5, 2, 3};
  c.seqused_k = {5, 2, 2};
  c.causal = true;
  c.window_left = 2;
  c.softcap = 1.5f;
  c.alibi = true;
  c.seed = 7;
  const CaseTensors t = make_case_tensors(c, Op::backward);
  const reference::BackwardResult g = reference::backward(t.problem, t.dout_values);
  const auto loss = [&](const reference::Problem& p) {
    const std::vector<double> out = reference::forward(p).out;
    double sum = 0;
    for (std::size_t n = 0; n < out.size(); ++n) sum += out[n] * t.dout_values[n];
    return sum;
  };
  constexpr double kStep = 1e-6;
  const auto check = [&](std::vector<double> reference::Problem::*input, const std::vector<double>& grad) {
    for (std::size_t n = 0; n < (t.problem.*input).size(); ++n) {
      if (std::isnan((t.problem.*input)[n])) continue;  // a poisoned key row beyond seqused_k
      reference::Problem up = t.problem, down = t.problem;
      (up.*input)[n] += kStep;
      (down.*input)[n] -= kStep;
      EXPECT_NEAR((loss(up) - loss(down)) / (2 * kStep), grad[n], 1e-7) << "element " << n;
    }
  };
  check(&reference::Problem::q, g.dq);
  check(&reference::Problem::k, g.dk);
  check(&reference::Problem::v, g.dv);
}

// The oracle's independent rounding against hand-picked values.
TEST(Oracle, RoundingToStorageDtypes) {
  EXPECT_EQ(reference::round_to_fp16(1.0 + 0x1p-11), 1.0);               // tie, to even
  EXPECT_EQ(reference::round_to_fp16(1.0 + 3 * 0x1p-11), 1.0 + 0x1p-9);  // tie, to even (up)
  EXPECT_EQ(reference::round_to_fp16(65519.0), 65504.0);                 // below the overflow midpoint
  EXPECT_TRUE(std::isinf(reference::round_to_fp16(65520.0)));            // the midpoint overflows
  EXPECT_EQ(reference::round_to_fp16(0x1p-25), 0.0);                     // half the smallest subnormal
  EXPECT_EQ(reference::round_to_fp16(0x1p-25 * 1.0000001), 0x1p-24);     // just above it
  EXPECT_EQ(reference::round_to_bf16(1.0 + 0x1p-8), 1.0);                // tie, to even
  EXPECT_EQ(reference::round_to_bf16(1.0 + 0x1p-8 + 0x1p-20), 1.0 + 0x1p-7);
  EXPECT_EQ(reference::round_to_bf16(-3.0), -3.0);
  EXPECT_EQ(reference::round_to_fp32(1.0 + 0x1p-24), 1.0);
}

// A realistic forward problem with its oracle and base.
struct Judged {
  CaseTensors tensors;
  reference::ForwardResult ref, base;
};

Judged judged_case(DType dtype, bool causal) {
  Case c;
  c.dtype = dtype;
  c.heads = 2;
  c.heads_kv = 1;
  c.head_dim = 64;
  c.seqlen_q = 100;
  c.seqlen_k = 80;
  c.causal = causal;
  c.seed = 99;
  Judged j{make_case_tensors(c, Op::forward)};
  j.ref = reference::forward(j.tensors.problem);
  j.base = reference::base_forward(j.tensors.problem, precision_of(dtype));
  return j;
}

Comparison judge_out(const Judged& j, const std::vector<double>& out) {
  return compare("out", out, j.ref.out, j.base.out, j.ref.out_magnitude, kBaseErrorFactor);
}

class Rule : public ::testing::TestWithParam<DType> {};

TEST_P(Rule, TheOracleAndTheBasePass) {
  const Judged j = judged_case(GetParam(), true);
  EXPECT_TRUE(judge_out(j, j.ref.out).passed);
  EXPECT_TRUE(judge_out(j, j.base.out).passed);
  EXPECT_TRUE(
      compare("lse", j.base.lse, j.ref.lse, j.base.lse, j.ref.lse_magnitude, kBaseErrorFactor).passed);
}

TEST_P(Rule, OneElementOffByThreeBaseErrorsFails) {
  const Judged j = judged_case(GetParam(), false);
  const Comparison clean = judge_out(j, j.base.out);
  std::vector<double> out = j.base.out;
  out[123] = j.ref.out[123] + 1.5 * clean.max_bound;
  const Comparison perturbed = judge_out(j, out);
  EXPECT_FALSE(perturbed.passed);
  EXPECT_GT(perturbed.max_err, perturbed.max_bound);
}

TEST_P(Rule, SmallSystematicBiasFailsTheMeanBound) {
  const Judged j = judged_case(GetParam(), false);
  const Comparison clean = judge_out(j, j.base.out);
  ASSERT_LT(clean.mean_bound, clean.max_bound);
  // Every element off by the same amount, between the two bounds: only the mean can catch it.
  const double bias = 0.5 * (clean.mean_bound + clean.max_bound);
  std::vector<double> out = j.ref.out;
  for (double& x : out) x += bias;
  const Comparison biased = judge_out(j, out);
  EXPECT_LE(biased.max_err, biased.max_bound);
  EXPECT_FALSE(biased.passed);
}

// A kernel with a subtly wrong scale (one part in 256) or a causal diagonal off by one is caught.
TEST_P(Rule, PlausibleKernelBugsFail) {
  const Judged j = judged_case(GetParam(), true);
  reference::Problem wrong_scale = j.tensors.problem;
  wrong_scale.scale = wrong_scale.resolved_scale() * (1 + 1.0 / 256);
  EXPECT_FALSE(judge_out(j, reference::base_forward(wrong_scale, precision_of(GetParam())).out).passed);
  reference::Problem off_by_one = j.tensors.problem;
  off_by_one.causal = false;
  off_by_one.window_right = 1;
  EXPECT_FALSE(judge_out(j, reference::base_forward(off_by_one, precision_of(GetParam())).out).passed);
}

TEST_P(Rule, AnUnwrittenElementFails) {
  const Judged j = judged_case(GetParam(), false);
  std::vector<double> out = j.ref.out;
  out[7] = std::numeric_limits<double>::quiet_NaN();
  const Comparison c = judge_out(j, out);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.kind_mismatches, 1);
}

TEST_P(Rule, LseKindsMustMatch) {
  const Judged j = judged_case(GetParam(), true);  // Sq > Sk causal: leading rows are -inf
  ASSERT_EQ(j.ref.lse[0], kMinusInf);
  const auto judge_lse = [&](const std::vector<double>& lse) {
    return compare("lse", lse, j.ref.lse, j.base.lse, j.ref.lse_magnitude, kBaseErrorFactor);
  };
  std::vector<double> finite_where_masked = j.ref.lse;
  finite_where_masked[0] = -1e30;
  EXPECT_FALSE(judge_lse(finite_where_masked).passed);
  std::vector<double> masked_where_finite = j.ref.lse;
  masked_where_finite.back() = kMinusInf;
  EXPECT_FALSE(judge_lse(masked_where_finite).passed);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Rule, ::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(Rule, AllZeroReferenceMustBeExactlyZero) {
  const std::vector<double> zeros(10, 0.0);
  std::vector<double> almost = zeros;
  almost[3] = 1e-30;
  EXPECT_TRUE(compare("dq", zeros, zeros, zeros, 0.0, kBaseErrorFactor).passed);
  EXPECT_FALSE(compare("dq", almost, zeros, zeros, 0.0, kBaseErrorFactor).passed);
}

TEST(Rule, AtolIsTwiceFp32NoiseAtTheMagnitude) {
  const Comparison c = compare("out", {1.0}, {1.0}, {1.0}, 8.0, kBaseErrorFactor);
  EXPECT_EQ(c.max_bound, 2 * 0x1p-23 * 8.0);
  EXPECT_EQ(c.mean_bound, 2 * 0x1p-23 * 8.0);
}

TEST(HostTensors, PaddedViewsAreNonContiguousAndPoisoned) {
  HostTensor t = HostTensor::padded(DType::bf16, {2, 3, 4, 8});
  EXPECT_EQ(t.stride(3), 1);
  EXPECT_LT(t.stride(0), t.stride(1));  // batch inside sequence
  EXPECT_GT(t.stride(2), 8);            // padded columns
  EXPECT_TRUE(t.padding_intact());
  EXPECT_TRUE(std::isnan(t.get(t.offset({1, 2, 3, 7}))));
  t.set(t.offset({1, 2, 3, 7}), 1.5);
  EXPECT_EQ(t.get(t.offset({1, 2, 3, 7})), 1.5);
  EXPECT_TRUE(t.padding_intact());
  t.set(t.offset({1, 2, 3, 7}) + 1, 0.0);  // the first padding column of that row
  EXPECT_FALSE(t.padding_intact());
}

TEST(CaseTensors, KeysBeyondSequsedArePoisonedAndInputsRounded) {
  Case c;
  c.dtype = DType::bf16;
  c.head_dim = 8;
  c.seqlens_q = {2, 3};
  c.seqlens_k = {4, 5};
  c.seqused_k = {4, 2};
  c.strided = true;
  const CaseTensors t = make_case_tensors(c, Op::forward);
  for (std::int64_t key = 0; key < 9; ++key) {
    const bool used = key < 4 || key < 6;
    for (int d = 0; d < 8; ++d) {
      const double value = t.k.get(t.k_layout.offset(t.k, key, 0, d));
      EXPECT_EQ(std::isnan(value), !used) << "key " << key;
      if (used) {
        EXPECT_EQ(value, t.problem.k[key * 8 + d]);
        EXPECT_EQ(value, reference::round_to_bf16(value));
        EXPECT_NE(value, 0.0);
      }
    }
  }
  EXPECT_EQ(t.q.shape(0), 5 + 2);  // two poisoned rows past the last sequence
}

}  // namespace
}  // namespace flashattn::testing
