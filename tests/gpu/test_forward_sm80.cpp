// The portable CUDA forward kernel (sm80 path) against the fp64 oracle: the sweep of DESIGN.md §3 for every
// built dtype and head dim, bitwise-identical reruns, and what RunInfo and is_supported() report. Every test
// skips when no CUDA device is visible (CI).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "flashattn/flashattn.hpp"
#include "forward_suite.hpp"

namespace flashattn::testing {
namespace {

constexpr Target kCuda{Device{DeviceKind::cuda, 0}, CudaPath::automatic, 0};
constexpr Target kPortable{Device{DeviceKind::cuda, 0}, CudaPath::portable, 0};

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible"

/// A forward call on CUDA device 0 that touches no memory: for is_supported() probes only.
ForwardArgs probe_args(DType dtype, int head_dim) {
  void* const fake = reinterpret_cast<void*>(std::uintptr_t{1} << 12);  // 16-byte aligned, never read
  ForwardArgs args;
  args.q = TensorView::contiguous(fake, dtype, {1, 1, 1, head_dim});
  args.k = TensorView::contiguous(fake, dtype, {1, 1, 1, head_dim});
  args.v = TensorView::contiguous(fake, dtype, {1, 1, 1, head_dim});
  args.out = TensorView::contiguous(fake, dtype, {1, 1, 1, head_dim});
  args.device = kCuda.device;
  args.cuda_path = CudaPath::portable;
  return args;
}

/// The dtypes and head dims this build's portable kernels cover on device 0.
Capabilities portable_capabilities() { return capabilities(kCuda.device, CudaPath::portable, Op::forward); }

// The sweeps force the portable path: on Hopper the automatic path would take the sm90 kernels.
TEST(CudaForwardSm80, SweepMatchesOracle) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty()) << "no portable CUDA forward kernel is built";
  expect_sweep_matches_oracle(caps, kPortable);
}

// D != Dv pairs (D 192 / Dv 128) on the portable kernel of the pair, forced onto the portable path.
TEST(CudaForwardSm80, HeadDimPairsMatchOracle) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  if (caps.head_dim_pairs.empty()) GTEST_SKIP() << "no portable D != Dv forward kernel is built";
  expect_head_dim_pairs_match_oracle(caps, kPortable, "fwd_sm80_");
}

TEST(CudaForwardSm80, RerunsAreBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  expect_reruns_bitwise_identical(caps, kPortable);
}

TEST(CudaForwardSm80, RunInfoNamesThePortableKernel) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  Case c;
  c.dtype = caps.dtypes.front();
  c.head_dim = caps.head_dims.front();
  c.seqlen_q = 200;
  c.seqlen_k = 300;
  // On Hopper the automatic path takes the sm90 kernel when one is built for the key (test_forward_sm90
  // checks it) and otherwise records the fallback; the forced portable path never falls back.
  const auto props = cuda_device_properties(0);
  const bool hopper = props && props->sm_major == 9;
  ForwardArgs hopper_probe = probe_args(c.dtype, c.head_dim);
  hopper_probe.cuda_path = CudaPath::hopper;
  const bool hopper_built = hopper && is_supported(hopper_probe).ok();
  for (CudaPath path : {CudaPath::automatic, CudaPath::portable}) {
    if (path == CudaPath::automatic && hopper_built) continue;
    const CaseResult result = run_case(c, Op::forward, Target{kCuda.device, path, 0});
    ASSERT_TRUE(result.status.ok()) << summary(result);
    EXPECT_EQ(result.info.backend, Backend::cuda);
    EXPECT_EQ(result.info.kernel,
              std::string("fwd_sm80_") + to_string(c.dtype) + "_hd" + std::to_string(c.head_dim));
    EXPECT_TRUE(result.info.launched);
    EXPECT_GT(result.info.block_m, 0);
    EXPECT_GT(result.info.block_n, 0);
    EXPECT_EQ(result.info.fell_back, hopper && path == CudaPath::automatic) << result.info.fallback_reason;
  }
}

TEST(CudaForwardSm80, MisalignedOperandsAreUnsupported) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  ForwardArgs args = probe_args(caps.dtypes.front(), caps.head_dims.front());
  args.k.data = static_cast<char*>(args.k.data) + 2;  // element-aligned, not 16-byte aligned
  Status status = is_supported(args);
  EXPECT_EQ(status.code(), StatusCode::unsupported) << status.to_string();
  EXPECT_NE(status.message().find("k: "), std::string::npos) << status.message();

  args = probe_args(caps.dtypes.front(), caps.head_dims.front());
  const int d = caps.head_dims.front();
  args.q = TensorView::strided(args.q.data, args.q.dtype, {1, 2, 1, d}, {2 * (d + 4), d + 4, d + 4, 1});
  args.out = TensorView::contiguous(args.out.data, args.out.dtype, {1, 2, 1, d});
  status = is_supported(args);
  EXPECT_EQ(status.code(), StatusCode::unsupported) << status.to_string();
  EXPECT_NE(status.message().find("q: "), std::string::npos) << status.message();
}

}  // namespace
}  // namespace flashattn::testing
