// The Hopper CUDA forward kernel (sm90 path) against the fp64 oracle: the sweep of DESIGN.md §3 forced
// onto CudaPath::hopper for every built sm90 dtype and head dim, bitwise-identical reruns, and what
// RunInfo reports. Every test skips without an sm90 device or without a built sm90 kernel (CI).
// FLASHATTN_GPU_TIER=full|stress widens the sweep (scripts/gpu).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "flashattn/flashattn.hpp"
#include "testing/check.hpp"
#include "testing/sweeps.hpp"

namespace flashattn::testing {
namespace {

constexpr Device kDevice{DeviceKind::cuda, 0};
constexpr Target kHopper{kDevice, CudaPath::hopper, 0};

/// Skips unless device 0 is sm90 and this build has an sm90 forward kernel; else returns what it covers.
#define HOPPER_CAPABILITIES_OR_SKIP(caps)                                                 \
  const auto props_ = cuda_device_properties(0);                                          \
  if (!props_ || props_->sm_major != 9) GTEST_SKIP() << "no sm90 CUDA device is visible"; \
  const Capabilities caps = capabilities(kDevice, CudaPath::hopper, Op::forward);         \
  if (caps.dtypes.empty()) GTEST_SKIP() << "no sm90 forward kernel is built (FLASHATTN_CUDA_ARCHS)"

Tier tier_from_environment() {
  const char* tier = std::getenv("FLASHATTN_GPU_TIER");
  if (tier == nullptr) return Tier::quick;
  const std::string name(tier);
  return name == "stress" ? Tier::stress : name == "full" ? Tier::full : Tier::quick;
}

TEST(CudaForwardSm90, SweepMatchesOracle) {
  HOPPER_CAPABILITIES_OR_SKIP(caps);
  const std::vector<Case> cases = sweep(tier_from_environment(), Op::forward, caps);
  ASSERT_FALSE(cases.empty());
  int failures = 0;
  for (const Case& c : cases) {
    const CaseResult result = run_case(c, Op::forward, kHopper);
    if (!result.status.ok() || !result.passed) {
      ++failures;
      ADD_FAILURE() << summary(result);
    }
  }
  EXPECT_EQ(failures, 0) << "of " << cases.size() << " cases";
}

TEST(CudaForwardSm90, RerunsAreBitwiseIdentical) {
  HOPPER_CAPABILITIES_OR_SKIP(caps);
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
  for (const Case& c : {dense, varlen}) {
    EXPECT_TRUE(reruns_bitwise_equal(c, Op::forward, kHopper, 20)) << describe(c);
  }
}

TEST(CudaForwardSm90, RunInfoNamesTheHopperKernel) {
  HOPPER_CAPABILITIES_OR_SKIP(caps);
  Case c;
  c.dtype = caps.dtypes.front();
  c.head_dim = caps.head_dims.front();
  c.seqlen_q = 200;
  c.seqlen_k = 300;
  // The automatic path takes the sm90 kernel whenever one is built for the key: no fallback.
  for (CudaPath path : {CudaPath::automatic, CudaPath::hopper}) {
    const CaseResult result = run_case(c, Op::forward, Target{kDevice, path, 0});
    ASSERT_TRUE(result.status.ok()) << summary(result);
    EXPECT_EQ(result.info.backend, Backend::cuda);
    EXPECT_EQ(result.info.kernel,
              std::string("fwd_sm90_") + to_string(c.dtype) + "_hd" + std::to_string(c.head_dim));
    EXPECT_TRUE(result.info.launched);
    EXPECT_GT(result.info.block_m, 0);
    EXPECT_GT(result.info.block_n, 0);
    EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
  }
}

}  // namespace
}  // namespace flashattn::testing
