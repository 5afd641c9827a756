// The checks every CUDA path must pass, shared by the per-path suites (test_forward_sm80/sm90.cpp,
// test_backward_sm80/sm90.cpp): the oracle sweep and bitwise-identical reruns, on a Target that forces
// the path, the dense GQA case the backward suites build their regression cases from, and the backward's
// caller workspace.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "flashattn/device.hpp"
#include "testing/case_run.hpp"
#include "testing/check.hpp"
#include "testing/sweeps.hpp"

namespace flashattn::testing {

/// Skips the test unless device 0 is sm90 and this build has an sm90 kernel for `op` (Op::forward or
/// Op::backward); else declares `caps`, what those kernels cover.
#define HOPPER_CAPABILITIES_OR_SKIP(caps, op)                                                \
  const auto props_ = cuda_device_properties(0);                                             \
  if (!props_ || props_->sm_major != 9) GTEST_SKIP() << "no sm90 CUDA device is visible";    \
  const Capabilities caps = capabilities(Device{DeviceKind::cuda, 0}, CudaPath::hopper, op); \
  if (caps.dtypes.empty())                                                                   \
  GTEST_SKIP() << "no sm90 " << to_string(op) << " kernel is built (FLASHATTN_CUDA_ARCHS)"

/// FLASHATTN_GPU_TIER=full|stress widens the sweep (scripts/gpu); quick otherwise.
inline Tier tier_from_environment() {
  const char* tier = std::getenv("FLASHATTN_GPU_TIER");
  if (tier == nullptr) return Tier::quick;
  const std::string name(tier);
  return name == "stress" ? Tier::stress : name == "full" ? Tier::full : Tier::quick;
}

/// Every case passes the calibrated rule against the fp64 oracle through `op` on `target`.
inline void expect_all_pass(const std::vector<Case>& cases, Op op, const Target& target) {
  int failures = 0;
  for (const Case& c : cases) {
    const CaseResult result = run_case(c, op, target);
    if (!result.status.ok() || !result.passed) {
      ++failures;
      ADD_FAILURE() << summary(result);
    }
  }
  EXPECT_EQ(failures, 0) << "of " << cases.size() << " cases";
}

/// Every case of the sweep of `op` for `caps` on `target` passes the calibrated rule against the oracle.
inline void expect_sweep_matches_oracle(const Capabilities& caps, const Target& target, Op op = Op::forward) {
  const std::vector<Case> cases = sweep(tier_from_environment(), op, caps);
  ASSERT_FALSE(cases.empty());
  expect_all_pass(cases, op, target);
}

/// A dense GQA case (B 2, H 4, Hk 2) of the first built dtype.
inline Case dense_gqa_case(const Capabilities& caps, int head_dim, int seqlen_q, int seqlen_k,
                           std::uint64_t seed) {
  return make_dense_case(caps.dtypes.front(), head_dim, 2, 4, 2, seqlen_q, seqlen_k, seed);
}

/// The cases a D != Dv pair's kernel must pass, in `dtype`: what changes the V and O paths — partial key
/// and query tiles, the causal diagonal on strided views with GQA, varlen with empty sequences and used
/// keys (V's tail rows), a window with softcap and ALiBi, a batch without any key, many heads (the Hopper
/// kernel's paired tiles).
inline std::vector<Case> head_dim_pair_cases(const Capabilities& caps, int head_dim, int head_dim_v,
                                             DType dtype) {
  Case full = dense_gqa_case(caps, head_dim, 300, 383, 7001);
  full.dtype = dtype;
  full.head_dim_v = head_dim_v;
  Case causal = full;
  causal.seqlen_q = causal.seqlen_k = 383;
  causal.causal = true;
  causal.strided = true;
  causal.seed = 7002;
  Case varlen = full;
  varlen.batch = 5;
  varlen.seqlens_q = {0, 1, 129, 300, 64};
  varlen.seqlens_k = {5, 0, 200, 383, 129};
  varlen.seqused_k = {5, 0, 150, 383, 100};
  varlen.causal = true;
  varlen.seed = 7003;
  Case mods = full;
  mods.window_left = 100;
  mods.window_right = 20;
  mods.softcap = 30.0f;
  mods.alibi = true;
  mods.seed = 7004;
  Case no_keys = full;
  no_keys.batch = 2;
  no_keys.seqlens_q = {3, 130};
  no_keys.seqlens_k = {0, 0};
  no_keys.seed = 7005;
  Case many_heads = full;
  many_heads.batch = 5;
  many_heads.heads = 32;
  many_heads.heads_kv = 8;
  many_heads.seqlen_q = many_heads.seqlen_k = 300;
  many_heads.causal = true;
  many_heads.seed = 7006;
  return {full, causal, varlen, mods, no_keys, many_heads};
}

/// Every built pair of `caps` on `target`'s path, every dtype, through `op`: head_dim_pair_cases() pass the
/// oracle, the kernel RunInfo names is `kernel_prefix` + "<dtype>_hd<D>_dv<Dv>" with no fallback, and reruns
/// of the causal case are stable (forward: bitwise; backward: dK, dV bitwise and dQ within rounding).
inline void expect_head_dim_pairs_match_oracle(const Capabilities& caps, const Target& target,
                                               const std::string& kernel_prefix, Op op = Op::forward) {
  for (const auto& [head_dim, head_dim_v] : caps.head_dim_pairs) {
    for (DType dtype : caps.dtypes) {
      const std::vector<Case> cases = head_dim_pair_cases(caps, head_dim, head_dim_v, dtype);
      expect_all_pass(cases, op, target);
      const CaseResult result = run_case(cases.front(), op, target);
      ASSERT_TRUE(result.status.ok()) << summary(result);
      EXPECT_EQ(result.info.kernel, kernel_prefix + to_string(dtype) + "_hd" + std::to_string(head_dim) +
                                        "_dv" + std::to_string(head_dim_v));
      EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
      if (op == Op::forward) {
        EXPECT_TRUE(reruns_bitwise_equal(cases[1], op, target, 5)) << describe(cases[1]);
      } else {
        EXPECT_EQ(backward_rerun_differences(cases[1], target, 5), "") << describe(cases[1]);
      }
    }
  }
}

/// The cases reruns are compared on: a dense causal GQA case with many key blocks per query block, and a
/// varlen case with window, softcap and ALiBi whose sequences include empty and length-1 ones.
inline std::vector<Case> rerun_cases(const Capabilities& caps) {
  Case dense;
  dense.dtype = caps.dtypes.back();
  dense.head_dim = caps.head_dims.front();
  dense.batch = 2;
  dense.heads = 8;
  dense.heads_kv = 2;
  dense.seqlen_q = 1023;
  dense.seqlen_k = 1024;
  dense.causal = true;
  Case varlen = dense;
  varlen.seqlens_q = {0, 1, 300, 129};
  varlen.seqlens_k = {5, 0, 511, 64};
  varlen.causal = false;
  varlen.window_left = 100;
  varlen.softcap = 30.0f;
  varlen.alibi = true;
  return {dense, varlen};
}

/// 20 reruns of each rerun_cases() case give bitwise-identical out and lse.
inline void expect_reruns_bitwise_identical(const Capabilities& caps, const Target& target) {
  for (const Case& c : rerun_cases(caps)) {
    EXPECT_TRUE(reruns_bitwise_equal(c, Op::forward, target, 20)) << describe(c);
  }
}

/// Races: a batch of 60 causal GQA sequences (many CTAs adding into the same dQ rows at once) rerun 10
/// times without deterministic on `target`'s path, every built head dim: out, lse, dK and dV bitwise
/// identical every time, dQ equal up to rounding. `next_seed` gives each case's seed.
inline void expect_backward_batch_of_60_stable(const Capabilities& caps, const Target& target,
                                               std::uint64_t (*next_seed)()) {
  for (int head_dim : caps.head_dims) {
    Case c = dense_gqa_case(caps, head_dim, 257, 384, next_seed());
    c.batch = 60;
    c.causal = true;
    EXPECT_EQ(backward_rerun_differences(c, target, 10), "") << describe(c);
  }
}

/// backward() with the caller's workspace on `target`'s path: the varlen rerun case passes the oracle and
/// its deterministic reruns, all on one buffer with stale contents, are bitwise identical; one byte short
/// is refused with an error naming the workspace, and dq stays untouched.
inline void expect_backward_caller_workspace(const Capabilities& caps, Target target) {
  target.caller_workspace = true;
  const Case c = rerun_cases(caps).back();
  const CaseResult result = run_case(c, Op::backward, target);
  EXPECT_TRUE(result.passed) << summary(result);
  EXPECT_TRUE(reruns_bitwise_equal(c, Op::backward, target, 5)) << describe(c);

  DeviceTensors device(target.device);
  CaseTensors t = make_case_tensors(c, Op::backward);
  ASSERT_TRUE(forward(forward_args(c, t, device, target)).ok());
  BackwardArgs short_by_one = backward_args(c, t, device, target);
  ASSERT_GT(short_by_one.workspace_bytes, 0u);
  short_by_one.workspace_bytes -= 1;
  const Status refused = backward(short_by_one);
  EXPECT_EQ(refused.code(), StatusCode::invalid_argument) << refused.to_string();
  EXPECT_EQ(refused.message().rfind("workspace:", 0), 0u) << refused.message();
  device.download_outputs();
  const auto elements = static_cast<std::int64_t>(t.dq.size_bytes() / element_size(t.dq.dtype()));
  std::int64_t written = 0;
  for (std::int64_t i = 0; i < elements; ++i) written += t.dq.is_poisoned(i) ? 0 : 1;
  EXPECT_EQ(written, 0) << "dq elements written by a refused call";
}

}  // namespace flashattn::testing
