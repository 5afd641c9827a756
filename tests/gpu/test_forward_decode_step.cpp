// A decode step through the forward API (core::forward_takes_decode_kernel: a dense call whose Sq x H / Hk
// query rows of a kv head fit one decode row block, D = Dv) runs on the decode kernel on the automatic path:
// RunInfo names it, and out and lse pass the calibrated rule against the fp64 oracle for GQA / MQA / MHA,
// Sq up to the bound, every mask option, keys that split, rows without a key, an empty and a one-key
// sequence and strided views with large logits; one row more and the explicit paths keep the forward kernels.
// Skips without a CUDA device or without a built decode kernel (CI).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/kvcache_checks.hpp"
#include "flashattn/flashattn.hpp"
#include "testing/check.hpp"
#include "testing/device_memory.hpp"

namespace flashattn::testing {
namespace {

constexpr Device kGpu{DeviceKind::cuda, 0};

/// Decode steps of (dtype, head_dim), each within one decode row block (Sq x group <= 16).
std::vector<Case> decode_steps(DType dtype, int head_dim) {
  auto step = [&](int batch, int heads, int heads_kv, int seqlen_q, int seqlen_k, std::uint64_t seed) {
    return make_dense_case(dtype, head_dim, batch, heads, heads_kv, seqlen_q, seqlen_k, seed);
  };
  std::vector<Case> cases;
  cases.push_back(step(8, 32, 8, 1, 8192, 9101));  // session 35's slow cell: the keys split
  Case causal = step(2, 8, 8, 16, 1000, 9102);     // MHA, 16 rows: the bound
  causal.causal = true;
  cases.push_back(causal);
  Case window = step(3, 16, 4, 4, 300, 9103);  // 16 rows of a kv head
  window.window_left = 64;
  window.window_right = 0;
  cases.push_back(window);
  Case mods = step(2, 8, 1, 2, 513, 9104);  // MQA, group 8
  mods.softcap = 30.0f;
  mods.alibi = true;
  cases.push_back(mods);
  Case leading = step(2, 2, 2, 8, 5, 9108);  // causal with fewer keys than queries: rows without a key
  leading.causal = true;
  cases.push_back(leading);
  cases.push_back(step(2, 4, 2, 3, 0, 9105));  // no keys: zero rows, lse -inf
  cases.push_back(step(1, 2, 2, 1, 1, 9106));
  Case strided = step(2, 8, 2, 1, 2048, 9107);
  strided.strided = true;
  strided.input_scale = 5.0f;
  cases.push_back(strided);
  return cases;
}

std::string decode_kernel(DType dtype, int head_dim) {
  return "kvcache_sm80_" + std::string(to_string(dtype)) + "_hd" + std::to_string(head_dim);
}

TEST(CudaForwardDecodeStep, RunsOnTheDecodeKernelAndMatchesOracle) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible";
  const auto built = built_decode_kernels(kGpu);
  if (built.empty()) GTEST_SKIP() << "no CUDA decode kernel is built";
  for (const auto& [dtype, head_dim] : built) {
    for (const Case& c : decode_steps(dtype, head_dim)) {
      const CaseResult result = run_case(c, Op::forward, Target{kGpu, CudaPath::automatic, 0});
      ASSERT_TRUE(result.status.ok()) << summary(result);
      EXPECT_TRUE(result.passed) << summary(result);
      EXPECT_EQ(result.info.kernel, decode_kernel(dtype, head_dim)) << describe(c);
      EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
      EXPECT_TRUE(result.info.launched) << describe(c);
    }
  }
}

TEST(CudaForwardDecodeStep, MoreRowsOrAnExplicitPathKeepTheForwardKernels) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible";
  const auto built = built_decode_kernels(kGpu);
  if (built.empty()) GTEST_SKIP() << "no CUDA decode kernel is built";
  const auto [dtype, head_dim] = built.front();
  Case five_rows = decode_steps(dtype, head_dim)[2];  // Sq 4 x group 4 = 16 rows ...
  five_rows.seqlen_q = 5;                             // ... and 20
  const CaseResult automatic = run_case(five_rows, Op::forward, Target{kGpu, CudaPath::automatic, 0});
  if (automatic.status.ok()) {  // else no forward kernel of this head dim: refused, and not routed either
    EXPECT_TRUE(automatic.passed) << summary(automatic);
    EXPECT_EQ(automatic.info.kernel.rfind("fwd_", 0), 0u) << automatic.info.kernel;
  }
  const Case step = decode_steps(dtype, head_dim)[0];
  for (const CudaPath path : {CudaPath::hopper, CudaPath::portable}) {
    const CaseResult result = run_case(step, Op::forward, Target{kGpu, path, 0});
    if (!result.status.ok()) continue;  // that path has no kernel for this device or head dim
    EXPECT_TRUE(result.passed) << summary(result);
    EXPECT_EQ(result.info.kernel.rfind("fwd_", 0), 0u) << to_string(path) << ": " << result.info.kernel;
  }
}

}  // namespace
}  // namespace flashattn::testing
