// Unit tests of the online-softmax state (src/cpu/softmax_state.hpp): blockwise updates and merges must
// reproduce the one-shot softmax statistics, and empty states (m = -inf) must merge without NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cpu/softmax_state.hpp"

namespace flashattn::cpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// Folds `scores` (log2 domain) into `state` as one block; returns sum_j 2^(t_j - reference) * values_j
/// added to `acc` after rescaling it, i.e. the accumulator algebra the forward kernel uses.
float fold_block(SoftmaxState<float>& state, const std::vector<float>& scores,
                 const std::vector<float>& values, float acc) {
  float block_max = -kInf;
  for (float t : scores) block_max = std::max(block_max, t);
  float alpha = 0.0f;
  const float reference = state.rescale(block_max, alpha);
  float sum = 0.0f;
  float weighted = 0.0f;
  for (std::size_t j = 0; j < scores.size(); ++j) {
    const float p = exp2(scores[j] - reference);
    sum += p;
    weighted += p * values[j];
  }
  state.add(sum);
  return acc * alpha + weighted;
}

TEST(SoftmaxState, EmptyStateHasNoKeys) {
  const SoftmaxState<float> state;
  EXPECT_EQ(state.m, -kInf);
  EXPECT_EQ(state.l, 0.0f);
  EXPECT_EQ(state.inverse_sum(), 0.0f);
  EXPECT_EQ(log_sum_exp(state), -kInf);
}

TEST(SoftmaxState, BlockwiseUpdatesMatchOneShot) {
  const std::vector<float> scores = {0.5f, -3.0f, 7.25f, 2.0f, -1.0f, 6.5f, 0.0f};
  const std::vector<float> values = {1.0f, 2.0f, -1.0f, 0.5f, 3.0f, -2.0f, 4.0f};
  double max = -INFINITY;
  for (float t : scores) max = std::max<double>(max, t);
  double sum = 0.0;
  double weighted = 0.0;
  for (std::size_t j = 0; j < scores.size(); ++j) {
    sum += std::exp2(scores[j] - max);
    weighted += std::exp2(scores[j] - max) * values[j];
  }

  SoftmaxState<float> state;
  float acc = 0.0f;
  acc = fold_block(state, {scores.begin(), scores.begin() + 2}, {values.begin(), values.begin() + 2}, acc);
  acc = fold_block(state, {scores.begin() + 2, scores.begin() + 5}, {values.begin() + 2, values.begin() + 5},
                   acc);
  acc = fold_block(state, {scores.begin() + 5, scores.end()}, {values.begin() + 5, values.end()}, acc);

  EXPECT_EQ(state.m, 7.25f);
  EXPECT_NEAR(state.l, sum, 1e-6 * sum);
  EXPECT_NEAR(acc * state.inverse_sum(), weighted / sum, 1e-6);
  const double lse = (max + std::log2(sum)) * std::log(2.0);
  EXPECT_NEAR(log_sum_exp(state), lse, 1e-6 * std::fabs(lse));
}

TEST(SoftmaxState, FullyMaskedBlockLeavesStateEmpty) {
  SoftmaxState<float> state;
  const float acc = fold_block(state, {-kInf, -kInf}, {1.0f, 2.0f}, 0.0f);
  EXPECT_EQ(state.m, -kInf);
  EXPECT_EQ(state.l, 0.0f);
  EXPECT_EQ(acc, 0.0f);
  EXPECT_EQ(log_sum_exp(state), -kInf);
}

TEST(SoftmaxState, MaskedBlockAfterKeysChangesNothing) {
  SoftmaxState<float> state;
  float acc = fold_block(state, {1.0f, 3.0f}, {2.0f, 4.0f}, 0.0f);
  const SoftmaxState<float> before = state;
  acc = fold_block(state, {-kInf}, {100.0f}, acc);
  EXPECT_EQ(state.m, before.m);
  EXPECT_EQ(state.l, before.l);
  EXPECT_FALSE(std::isnan(acc));
}

TEST(SoftmaxState, MergeMatchesSequentialUpdates) {
  SoftmaxState<float> a;
  SoftmaxState<float> b;
  const float acc_a = fold_block(a, {0.5f, 4.0f}, {1.0f, -1.0f}, 0.0f);
  const float acc_b = fold_block(b, {9.0f, -2.0f, 1.0f}, {2.0f, 5.0f, 3.0f}, 0.0f);
  SoftmaxState<float> sequential;
  float acc = fold_block(sequential, {0.5f, 4.0f}, {1.0f, -1.0f}, 0.0f);
  acc = fold_block(sequential, {9.0f, -2.0f, 1.0f}, {2.0f, 5.0f, 3.0f}, acc);

  float alpha_a = 0.0f;
  float alpha_b = 0.0f;
  a.merge(b, alpha_a, alpha_b);
  const float merged = alpha_a * acc_a + alpha_b * acc_b;
  EXPECT_EQ(a.m, sequential.m);
  EXPECT_NEAR(a.l, sequential.l, 1e-6f * sequential.l);
  EXPECT_NEAR(merged * a.inverse_sum(), acc * sequential.inverse_sum(), 1e-6f);
}

TEST(SoftmaxState, MergeWithEmptyStates) {
  SoftmaxState<float> full;
  const float acc = fold_block(full, {2.0f, 5.0f}, {1.0f, 3.0f}, 0.0f);
  const SoftmaxState<float> reference = full;

  // full <- empty: unchanged, the empty side weighs exactly 0.
  float alpha_self = -1.0f;
  float alpha_other = -1.0f;
  full.merge(SoftmaxState<float>{}, alpha_self, alpha_other);
  EXPECT_EQ(full.m, reference.m);
  EXPECT_EQ(full.l, reference.l);
  EXPECT_EQ(alpha_self, 1.0f);
  EXPECT_EQ(alpha_other, 0.0f);

  // empty <- full: becomes the full state.
  SoftmaxState<float> empty;
  empty.merge(reference, alpha_self, alpha_other);
  EXPECT_EQ(empty.m, reference.m);
  EXPECT_EQ(empty.l, reference.l);
  EXPECT_EQ(alpha_self, 0.0f);
  EXPECT_EQ(alpha_other, 1.0f);
  EXPECT_EQ(alpha_self * 0.0f + alpha_other * acc, acc);

  // empty <- empty: stays empty, no NaN anywhere.
  SoftmaxState<float> both;
  both.merge(SoftmaxState<float>{}, alpha_self, alpha_other);
  EXPECT_EQ(both.m, -kInf);
  EXPECT_EQ(both.l, 0.0f);
  EXPECT_EQ(alpha_self, 0.0f);
  EXPECT_EQ(alpha_other, 0.0f);
  EXPECT_EQ(log_sum_exp(both), -kInf);
}

TEST(SoftmaxState, VectorLanesAreIndependent) {
  // Lane 0 sees keys, lane 1 sees only masked scores, the other lanes see nothing.
  SoftmaxState<Vec> state;
  Vec block_max = splat(-kInf);
  block_max[0] = 3.0f;
  Vec alpha;
  const Vec reference = state.rescale(block_max, alpha);
  Vec sum{};
  sum[0] = exp2(3.0f - reference[0]) + exp2(1.0f - reference[0]);
  sum[1] = exp2(-kInf - reference[1]);
  state.add(sum);
  // Scores are in the log2 domain: lse = ln(2^3 + 2^1) = (3 + log2(1 + 2^-2)) * ln 2.
  EXPECT_NEAR(log_sum_exp(lane_of(state, 0)), (3.0 + std::log2(1.25)) * std::log(2.0), 1e-6);
  for (int lane = 1; lane < kVecLanes; ++lane) {
    EXPECT_EQ(log_sum_exp(lane_of(state, lane)), -kInf) << lane;
    EXPECT_EQ(state.inverse_sum()[lane], 0.0f) << lane;
    EXPECT_FALSE(std::isnan(alpha[lane])) << lane;
  }
}

}  // namespace
}  // namespace flashattn::cpu
