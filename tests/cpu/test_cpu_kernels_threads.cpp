// How the CPU backend splits its work: every backward plan (backward_plan.hpp: no split, head splits with
// dK/dV partials, key chunks with dQ partials, both) is checked against the oracle, and no result may
// depend on the thread count — the forward's tiles per item follow it (forward_cpu.cpp), the backward's
// plan must not. Thread-count cases run with 1, 2 and 3 threads and compare every output byte.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "testing/case_run.hpp"
#include "testing/case_tensors.hpp"
#include "testing/check.hpp"
#include "testing/device_tensors.hpp"

namespace flashattn::testing {
namespace {

/// out, lse, dq, dk, dv bytes of a forward + backward of `c` on `threads` CPU threads.
std::vector<std::vector<std::byte>> outputs_with_threads(const Case& c, int threads) {
  DeviceTensors device(Device{});
  CaseTensors t = make_case_tensors(c, Op::backward);
  Target target;
  target.num_threads = threads;
  EXPECT_TRUE(forward(forward_args(c, t, device, target)).ok());
  EXPECT_TRUE(backward(backward_args(c, t, device, target)).ok());
  std::vector<std::vector<std::byte>> bytes;
  for (const HostTensor* tensor : {&t.out, &t.lse, &t.dq, &t.dk, &t.dv}) {
    bytes.emplace_back(tensor->bytes(), tensor->bytes() + tensor->size_bytes());
  }
  return bytes;
}

void expect_thread_count_invariant(const Case& c) {
  const auto one = outputs_with_threads(c, 1);
  EXPECT_EQ(outputs_with_threads(c, 2), one) << describe(c);
  EXPECT_EQ(outputs_with_threads(c, 3), one) << describe(c);
}

/// A causal case whose batch * kv heads (and group) select the backward plan.
Case plan_case(int batch, int heads, int heads_kv) {
  Case c;
  c.dtype = DType::fp32;
  c.batch = batch;
  c.heads = heads;
  c.heads_kv = heads_kv;
  c.seqlen_q = 300;
  c.seqlen_k = 333;
  c.causal = true;
  return c;
}

TEST(CpuBackwardPlan, EveryPlanMatchesTheOracle) {
  // No split; 2 head splits and 4 key chunks; 6 key chunks only; 8 head splits only.
  for (const Case& c : {plan_case(8, 4, 2), plan_case(1, 4, 2), plan_case(1, 1, 1), plan_case(2, 8, 1)}) {
    const CaseResult result = run_case(c, Op::backward, Target{});
    EXPECT_TRUE(result.passed) << summary(result);
  }
}

TEST(CpuThreads, DenseResultsDoNotDependOnTheThreadCount) {
  // One (b, kv head): the backward splits its key tiles into the most chunks; 9 query tiles give the
  // forward items of 1 to 4 tiles depending on the thread count.
  Case mqa;
  mqa.dtype = DType::fp32;
  mqa.heads = 3;
  mqa.heads_kv = 1;
  mqa.seqlen_q = 530;
  mqa.seqlen_k = 700;
  mqa.causal = true;
  mqa.alibi = true;
  expect_thread_count_invariant(mqa);

  Case window;
  window.dtype = DType::bf16;
  window.batch = 2;
  window.heads = 2;
  window.heads_kv = 2;
  window.seqlen_q = 600;
  window.seqlen_k = 450;
  window.window_left = 100;
  window.window_right = 30;
  window.softcap = 10.0f;
  window.strided = true;
  expect_thread_count_invariant(window);
}

TEST(CpuThreads, VarlenResultsDoNotDependOnTheThreadCount) {
  Case varlen;
  varlen.dtype = DType::fp16;
  varlen.heads = 4;
  varlen.heads_kv = 2;
  varlen.head_dim = 96;
  varlen.seqlens_q = {300, 0, 1, 257};
  varlen.seqlens_k = {420, 5, 64, 200};
  varlen.seqused_k = {400, 0, 64, 130};
  varlen.causal = true;
  expect_thread_count_invariant(varlen);
}

}  // namespace
}  // namespace flashattn::testing
