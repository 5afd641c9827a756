// The edge cases of DESIGN.md §1 on the CPU backend, each looked at directly (the raw outputs) and
// through the oracle rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "flashattn/flashattn.hpp"
#include "testing/case_run.hpp"
#include "testing/check.hpp"

namespace flashattn::testing {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

Case dense_case(DType dtype, int seqlen_q, int seqlen_k) {
  Case c;
  c.dtype = dtype;
  c.batch = 2;
  c.heads = 4;
  c.heads_kv = 2;
  c.head_dim = 32;
  c.seqlen_q = seqlen_q;
  c.seqlen_k = seqlen_k;
  return c;
}

// A case's tensors after forward (and backward for Op::backward) on the CPU.
struct Ran {
  CaseTensors t;
  Status forward_status, backward_status;
  RunInfo forward_info, backward_info;
};

Ran run(const Case& c, Op op) {
  Ran ran{make_case_tensors(c, op)};
  DeviceTensors device(Device{});
  const ForwardArgs fwd = forward_args(c, ran.t, device, Target{});
  ran.forward_status = forward(fwd, &ran.forward_info);
  if (op == Op::backward && ran.forward_status.ok()) {
    ran.backward_status = backward(backward_args(c, ran.t, device, Target{}), &ran.backward_info);
  }
  device.download_outputs();
  return ran;
}

void expect_passes(const Case& c, Op op) {
  const CaseResult result = run_case(c, op, Target{});
  EXPECT_TRUE(result.passed) << summary(result);
}

// Rows with no key: out exactly 0 and lse exactly -inf; every other row: finite lse.
void expect_masked_rows(const Ran& ran, const std::vector<bool>& row_has_key) {
  const reference::Problem& p = ran.t.problem;
  const std::vector<double> out = read_operand(ran.t.out, ran.t.q_layout, p.total_q(), p.heads, p.head_dim_v);
  const std::vector<double> lse = read_lse(ran.t.lse, ran.t.q_layout, p.total_q(), p.heads);
  for (std::int64_t token = 0; token < p.total_q(); ++token) {
    for (int h = 0; h < p.heads; ++h) {
      const double row_lse = lse[token * p.heads + h];
      if (row_has_key[token]) {
        EXPECT_TRUE(std::isfinite(row_lse)) << "token " << token << " head " << h;
        continue;
      }
      EXPECT_EQ(row_lse, kMinusInf) << "token " << token << " head " << h;
      for (int c = 0; c < p.head_dim_v; ++c) {
        ASSERT_EQ(out[(token * p.heads + h) * p.head_dim_v + c], 0.0) << "token " << token << " head " << h;
      }
    }
  }
}

// Every gradient element finite; dq of the rows with no key exactly 0.
void expect_clean_gradients(const Ran& ran, const std::vector<bool>& row_has_key) {
  const reference::Problem& p = ran.t.problem;
  const std::vector<double> dq = read_operand(ran.t.dq, ran.t.q_layout, p.total_q(), p.heads, p.head_dim);
  const std::vector<double> dk = read_operand(ran.t.dk, ran.t.k_layout, p.total_k(), p.heads_kv, p.head_dim);
  const std::vector<double> dv =
      read_operand(ran.t.dv, ran.t.k_layout, p.total_k(), p.heads_kv, p.head_dim_v);
  for (const std::vector<double>* grad : {&dq, &dk, &dv}) {
    for (double x : *grad) ASSERT_TRUE(std::isfinite(x));
  }
  for (std::int64_t token = 0; token < p.total_q(); ++token) {
    if (row_has_key[token]) continue;
    for (std::int64_t n = 0; n < std::int64_t{p.heads} * p.head_dim; ++n) {
      ASSERT_EQ(dq[token * p.heads * p.head_dim + n], 0.0) << "token " << token;
    }
  }
}

/// Forward and backward of `c`: rows without a key (row_has_key false) get out 0, lse -inf and zero
/// gradients, and every output passes the calibrated rule.
void expect_rows_without_keys(const Case& c, const std::vector<bool>& row_has_key) {
  for (Op op : {Op::forward, Op::backward}) {
    const Ran ran = run(c, op);
    ASSERT_TRUE(ran.forward_status.ok() && ran.backward_status.ok());
    expect_masked_rows(ran, row_has_key);
    if (op == Op::backward) expect_clean_gradients(ran, row_has_key);
    expect_passes(c, op);
  }
}

class EveryDtype : public ::testing::TestWithParam<DType> {};

TEST_P(EveryDtype, NoKeysGivesZeroOutAndMinusInfLse) {
  const Case c = dense_case(GetParam(), 7, 0);
  const Ran ran = run(c, Op::forward);
  ASSERT_TRUE(ran.forward_status.ok()) << ran.forward_status.to_string();
  expect_masked_rows(ran, std::vector<bool>(ran.t.problem.total_q(), false));
  expect_passes(c, Op::forward);
}

TEST_P(EveryDtype, NoKeysGivesZeroGradients) {
  const Case c = dense_case(GetParam(), 7, 0);
  const Ran ran = run(c, Op::backward);
  ASSERT_TRUE(ran.backward_status.ok()) << ran.backward_status.to_string();
  expect_clean_gradients(ran, std::vector<bool>(ran.t.problem.total_q(), false));
  expect_passes(c, Op::backward);
}

// Causal is bottom-right aligned: with Sq > Sk the first Sq - Sk rows of every sequence keep no key.
TEST_P(EveryDtype, CausalWithMoreQueriesThanKeysMasksTheLeadingRows) {
  Case c = dense_case(GetParam(), 45, 20);
  c.causal = true;
  std::vector<bool> has_key;
  for (int b = 0; b < c.batch; ++b) {
    for (int i = 0; i < c.seqlen_q; ++i) has_key.push_back(i >= c.seqlen_q - c.seqlen_k);
  }
  expect_rows_without_keys(c, has_key);
}

// A window wholly to the left of the first key: rows i with i + (Sk - Sq) + right < 0 keep nothing.
TEST_P(EveryDtype, WindowMasksTheRowsAboveTheBand) {
  Case c = dense_case(GetParam(), 50, 20);
  c.window_left = 5;
  c.window_right = 2;
  std::vector<bool> has_key;
  for (int b = 0; b < c.batch; ++b) {
    for (int i = 0; i < c.seqlen_q; ++i) has_key.push_back(i + c.seqlen_k - c.seqlen_q + c.window_right >= 0);
  }
  expect_rows_without_keys(c, has_key);
}

// Sequence 0 has queries and no keys, sequence 1 nothing at all, sequence 2 one query and one key,
// sequence 3 keys of which none is used.
TEST_P(EveryDtype, EmptyVarlenSequences) {
  Case c = dense_case(GetParam(), 0, 0);
  c.seqlens_q = {3, 0, 1, 4, 6};
  c.seqlens_k = {0, 0, 1, 5, 9};
  c.seqused_k = {0, 0, 1, 0, 7};
  c.batch = 5;
  const std::vector<bool> has_key = {false, false, false, true, false, false, false,
                                     false, true,  true,  true, true,  true,  true};
  for (bool strided : {false, true}) {
    c.strided = strided;
    expect_rows_without_keys(c, has_key);
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, EveryDtype, ::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Nothing to compute: success, nothing launched, every output byte still poisoned.
void expect_nothing_done(const Case& c, Op op) {
  const Ran ran = run(c, op);
  ASSERT_TRUE(ran.forward_status.ok()) << ran.forward_status.to_string();
  EXPECT_FALSE(ran.forward_info.launched);
  if (op == Op::backward) {
    ASSERT_TRUE(ran.backward_status.ok()) << ran.backward_status.to_string();
    EXPECT_FALSE(ran.backward_info.launched);
  }
  for (const HostTensor* output : {&ran.t.out, &ran.t.lse, &ran.t.dq, &ran.t.dk, &ran.t.dv}) {
    if (!output->present()) continue;
    const std::size_t elements = output->size_bytes() / element_size(output->dtype());
    for (std::size_t n = 0; n < elements; ++n) ASSERT_TRUE(output->is_poisoned(static_cast<std::int64_t>(n)));
  }
}

TEST(NothingToCompute, ZeroBatch) {
  Case c = dense_case(DType::bf16, 16, 16);
  c.batch = 0;
  expect_nothing_done(c, Op::forward);
  expect_nothing_done(c, Op::backward);
}

TEST(NothingToCompute, ZeroQueriesForward) {
  Case c = dense_case(DType::fp16, 0, 16);
  c.strided = true;
  expect_nothing_done(c, Op::forward);
}

TEST(NothingToCompute, ZeroTotalQueriesForward) {
  Case c = dense_case(DType::fp32, 0, 0);
  c.seqlens_q = {0, 0, 0};
  c.seqlens_k = {4, 0, 9};
  c.batch = 3;
  expect_nothing_done(c, Op::forward);
}

// Rows past cu_seqlens_q[B] belong to no sequence: whether or not anything is launched for them, nothing
// may be written there.
TEST(NothingToCompute, RowsPastTheLastSequenceStayUntouched) {
  Case c = dense_case(DType::fp16, 0, 0);
  c.seqlens_q = {0, 0, 0};
  c.seqlens_k = {4, 0, 9};
  c.batch = 3;
  c.strided = true;  // two poisoned rows past the (empty) sequences
  for (Op op : {Op::forward, Op::backward}) {
    const Ran ran = run(c, op);
    ASSERT_TRUE(ran.forward_status.ok() && ran.backward_status.ok());
    for (const HostTensor* output : {&ran.t.out, &ran.t.lse, &ran.t.dq}) {
      if (!output->present()) continue;
      const std::size_t elements = output->size_bytes() / element_size(output->dtype());
      for (std::size_t n = 0; n < elements; ++n)
        ASSERT_TRUE(output->is_poisoned(static_cast<std::int64_t>(n)));
    }
  }
}

// With no query there is no loss to differentiate: dk and dv are zero (they exist, so they are written).
TEST(NothingToCompute, ZeroQueriesBackwardZeroesKeyGradients) {
  Case c = dense_case(DType::bf16, 0, 16);
  expect_passes(c, Op::backward);
  c.seqlens_q = {0, 0};
  c.seqlens_k = {4, 9};
  expect_passes(c, Op::backward);
}

class LargeLogits : public ::testing::TestWithParam<int> {};

// Inputs times 5 push scores to tens: a kernel without max subtraction or with a bad rescale overflows.
TEST_P(LargeLogits, ForwardAndBackward) {
  for (DType dtype : {DType::fp16, DType::bf16, DType::fp32}) {
    for (bool causal : {false, true}) {
      Case c = dense_case(dtype, GetParam(), 128);
      c.input_scale = 5.0f;
      c.causal = causal;
      c.seed = 17 + GetParam();
      expect_passes(c, Op::forward);
      expect_passes(c, Op::backward);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sq, LargeLogits, ::testing::Values(1, 2, 5, 17, 128));

// dout given as a transposed view (sequence-major over batches, padded heads and columns) while every
// other tensor is contiguous.
TEST(Backward, TransposedDout) {
  Case c = dense_case(DType::bf16, 70, 90);
  c.causal = true;
  CaseTensors t = make_case_tensors(c, Op::backward);
  HostTensor transposed = HostTensor::padded(c.dtype, {c.batch, c.seqlen_q, c.heads, c.dv()});
  const reference::Problem& p = t.problem;
  for (std::int64_t token = 0; token < p.total_q(); ++token) {
    for (int h = 0; h < p.heads; ++h) {
      for (int col = 0; col < p.head_dim_v; ++col) {
        transposed.set(t.q_layout.offset(transposed, token, h, col),
                       t.dout_values[(token * p.heads + h) * p.head_dim_v + col]);
      }
    }
  }
  ASSERT_NE(transposed.stride(0), c.seqlen_q * transposed.stride(1));
  DeviceTensors device(Device{});
  ASSERT_TRUE(forward(forward_args(c, t, device, Target{})).ok());
  BackwardArgs args = backward_args(c, t, device, Target{});
  args.dout = device.input(transposed);
  const Status status = backward(args);
  ASSERT_TRUE(status.ok()) << status.to_string();
  device.download_outputs();
  for (const Comparison& comparison : judge_backward(c, t)) {
    EXPECT_TRUE(comparison.passed) << comparison.tensor << " max_err " << comparison.max_err << " > "
                                   << comparison.max_bound;
  }
}

// lse is optional: without it out is unchanged.
TEST(Forward, LseIsOptional) {
  Case c = dense_case(DType::fp16, 33, 65);
  c.causal = true;
  CaseTensors with_lse = make_case_tensors(c, Op::forward);
  CaseTensors without_lse = make_case_tensors(c, Op::forward);
  DeviceTensors device(Device{});
  ASSERT_TRUE(forward(forward_args(c, with_lse, device, Target{})).ok());
  ForwardArgs args = forward_args(c, without_lse, device, Target{});
  args.lse = TensorView{};
  ASSERT_TRUE(forward(args).ok());
  device.download_outputs();
  ASSERT_EQ(with_lse.out.size_bytes(), without_lse.out.size_bytes());
  EXPECT_EQ(0, std::memcmp(with_lse.out.bytes(), without_lse.out.bytes(), with_lse.out.size_bytes()));
}

// lse is the natural-log sum of exp over the kept keys: checked exactly against the oracle, including its
// -inf entries, by the rule; here also that every finite lse is at least the row's largest score.
TEST(Forward, LseMatchesTheOracle) {
  Case c = dense_case(DType::fp32, 40, 30);
  c.causal = true;
  c.alibi = true;
  const CaseResult result = run_case(c, Op::forward, Target{});
  ASSERT_EQ(result.comparisons.size(), 2u);
  EXPECT_EQ(result.comparisons[1].tensor, "lse");
  EXPECT_TRUE(result.comparisons[1].passed) << summary(result);
}

TEST(Determinism, ForwardRerunsAreBitwiseEqual) {
  Case c = dense_case(DType::bf16, 129, 200);
  c.causal = true;
  c.softcap = 5.0f;
  EXPECT_TRUE(reruns_bitwise_equal(c, Op::forward, Target{}, 3));
  Case varlen = dense_case(DType::fp16, 0, 0);
  varlen.seqlens_q = {5, 0, 70};
  varlen.seqlens_k = {9, 3, 130};
  varlen.strided = true;
  EXPECT_TRUE(reruns_bitwise_equal(varlen, Op::forward, Target{}, 3));
}

TEST(Determinism, BackwardRerunsAreBitwiseEqual) {
  Case c = dense_case(DType::bf16, 129, 200);
  c.causal = true;
  c.heads = 8;
  c.heads_kv = 1;
  EXPECT_TRUE(reruns_bitwise_equal(c, Op::backward, Target{}, 3));
  Case varlen = dense_case(DType::fp32, 0, 0);
  varlen.seqlens_q = {5, 0, 70};
  varlen.seqlens_k = {9, 3, 130};
  varlen.seqused_k = {9, 1, 100};
  EXPECT_TRUE(reruns_bitwise_equal(varlen, Op::backward, Target{}, 3));
}

// The race check the GPU suites run (backward_rerun_differences), on the CPU backend: its reruns agree, and
// it reads dQ through a strided varlen layout.
TEST(Determinism, BackwardRerunDifferencesAreEmptyOnTheCpu) {
  Case c = dense_case(DType::bf16, 129, 200);
  c.causal = true;
  EXPECT_EQ(backward_rerun_differences(c, Target{}, 3), "");
  Case varlen = dense_case(DType::fp16, 0, 0);
  varlen.seqlens_q = {5, 0, 70};
  varlen.seqlens_k = {9, 3, 130};
  varlen.strided = true;
  EXPECT_EQ(backward_rerun_differences(varlen, Target{}, 2), "");
}

}  // namespace
}  // namespace flashattn::testing
