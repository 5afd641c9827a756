// The portable CUDA backward kernel (sm80 path) against the fp64 oracle: the backward sweep of DESIGN.md §3
// for every built dtype and head dim, the regression cases known to break attention backwards (short query
// blocks with large logits, varlen causal rows that see no key, non-contiguous dO, lengths that are not
// tile multiples), and what RunInfo and is_supported() report. Every test skips when no CUDA device is
// visible (CI).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "flashattn/flashattn.hpp"
#include "forward_suite.hpp"

namespace flashattn::testing {
namespace {

constexpr Target kPortable{Device{DeviceKind::cuda, 0}, CudaPath::portable, 0};

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible"

/// The dtypes and head dims this build's portable backward kernels cover on device 0.
Capabilities portable_capabilities() {
  return capabilities(kPortable.device, CudaPath::portable, Op::backward);
}

/// Seeds of the cases below, apart from the sweeps' (which start at 1'000'000).
std::uint64_t next_seed() {
  static std::uint64_t seed = 77'000;
  return ++seed;
}

/// Every case passes the calibrated rule against the oracle on this suite's path.
void expect_all_pass(const std::vector<Case>& cases) {
  flashattn::testing::expect_all_pass(cases, Op::backward, kPortable);
}

/// A dense GQA case of the first built dtype, with this suite's next seed.
Case dense(const Capabilities& caps, int head_dim, int seqlen_q, int seqlen_k) {
  return dense_gqa_case(caps, head_dim, seqlen_q, seqlen_k, next_seed());
}

TEST(CudaBackwardSm80, SweepMatchesOracle) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty()) << "no portable CUDA backward kernel is built";
  expect_sweep_matches_oracle(caps, kPortable, Op::backward);
}

// D != Dv pairs (D 192 / Dv 128) on the portable backward of the pair: dQ, dK over D, dV and dP's dO·Vᵀ
// over Dv (forward_suite.hpp's head_dim_pair_cases, their forward on the portable pair kernel too).
TEST(CudaBackwardSm80, HeadDimPairsMatchOracle) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  if (caps.head_dim_pairs.empty()) GTEST_SKIP() << "no portable D != Dv backward kernel is built";
  expect_head_dim_pairs_match_oracle(caps, kPortable, "bwd_sm80_", Op::backward);
}

// Few query rows against many keys with inputs x5: large logits, a P concentrated on few keys, and query
// blocks that are mostly past the sequence end.
TEST(CudaBackwardSm80, ShortQueriesWithLargeLogits) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  std::vector<Case> cases;
  for (int head_dim : caps.head_dims) {
    for (int seqlen_q : {1, 2, 5, 17, 128}) {
      Case c = dense(caps, head_dim, seqlen_q, 300);
      c.input_scale = 5.0f;
      c.causal = seqlen_q % 2 == 1;
      cases.push_back(c);
    }
  }
  expect_all_pass(cases);
}

// Causal with more queries than keys per sequence: the first rows keep no key (lse = -inf) and must get
// zero gradients, never NaN; empty sequences on either side.
TEST(CudaBackwardSm80, VarlenCausalRowsWithoutKeys) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  std::vector<Case> cases;
  for (DType dtype : caps.dtypes) {
    Case c;
    c.dtype = dtype;
    c.head_dim = caps.head_dims.back();
    c.heads = 4;
    c.heads_kv = 1;
    c.seqlens_q = {70, 0, 129, 3, 200};
    c.seqlens_k = {10, 5, 64, 0, 130};
    c.causal = true;
    c.seed = next_seed();
    cases.push_back(c);
  }
  expect_all_pass(cases);
}

// Padded, permuted views for every tensor, dO included (its batch and sequence dimensions swapped in
// memory), with NaN in the padding.
TEST(CudaBackwardSm80, NonContiguousTensors) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  std::vector<Case> cases;
  for (int head_dim : caps.head_dims) {
    Case c = dense(caps, head_dim, 150, 211);
    c.strided = true;
    c.causal = head_dim % 64 == 0;
    cases.push_back(c);
  }
  expect_all_pass(cases);
}

// Lengths that are not tile multiples (the partial last query and key blocks), with and without causal.
TEST(CudaBackwardSm80, LengthsOffTileMultiples) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  std::vector<Case> cases;
  for (int head_dim : caps.head_dims) {
    for (int length : {238, 1023}) {
      for (bool causal : {false, true}) {
        Case c = dense(caps, head_dim, length, length);
        c.batch = 1;
        c.causal = causal;
        cases.push_back(c);
      }
    }
  }
  expect_all_pass(cases);
}

TEST(CudaBackwardSm80, RunInfoNamesThePortableKernel) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  const Case c = dense(caps, caps.head_dims.front(), 200, 300);
  const CaseResult result = run_case(c, Op::backward, kPortable);
  ASSERT_TRUE(result.status.ok()) << summary(result);
  EXPECT_EQ(result.info.backend, Backend::cuda);
  EXPECT_EQ(result.info.kernel,
            std::string("bwd_sm80_") + to_string(c.dtype) + "_hd" + std::to_string(c.head_dim));
  EXPECT_TRUE(result.info.launched);
  EXPECT_GT(result.info.block_m, 0);
  EXPECT_GT(result.info.block_n, 0);
  EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
}

/// A backward call on CUDA device 0 that touches no memory: for is_supported() probes only.
BackwardArgs probe_args(DType dtype, int head_dim) {
  void* const fake = reinterpret_cast<void*>(std::uintptr_t{1} << 12);  // 16-byte aligned, never read
  const TensorView operand = TensorView::contiguous(fake, dtype, {1, 1, 1, head_dim});
  BackwardArgs args;
  args.q = args.k = args.v = args.out = args.dout = args.dq = args.dk = args.dv = operand;
  args.lse = TensorView::contiguous(fake, DType::fp32, {1, 1, 1});
  args.device = kPortable.device;
  args.cuda_path = CudaPath::portable;
  return args;
}

TEST(CudaBackwardSm80, MisalignedGradientsAreUnsupported) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  BackwardArgs args = probe_args(caps.dtypes.front(), caps.head_dims.front());
  ASSERT_TRUE(is_supported(args).ok()) << is_supported(args).to_string();
  args.dout.data = static_cast<char*>(args.dout.data) + 2;  // element-aligned, not 16-byte aligned
  const Status status = is_supported(args);
  EXPECT_EQ(status.code(), StatusCode::unsupported) << status.to_string();
  EXPECT_NE(status.message().find("dout: "), std::string::npos) << status.message();
}

// deterministic = true: dQ, dK and dV within the oracle's bound and bitwise identical over 50 reruns, for a
// dense causal GQA case with many key blocks per query block and a varlen case with window, softcap, ALiBi
// and empty sequences.
TEST(CudaBackwardSm80, DeterministicRunsMatchOracleAndAreBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  Target deterministic = kPortable;
  deterministic.deterministic = true;
  flashattn::testing::expect_all_pass(rerun_cases(caps), Op::backward, deterministic);
  for (const Case& c : rerun_cases(caps)) {
    EXPECT_TRUE(reruns_bitwise_equal(c, Op::backward, kPortable, 50)) << describe(c);
  }
}

TEST(CudaBackwardSm80, ABatchOf60IsStableAcrossReruns) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  expect_backward_batch_of_60_stable(caps, kPortable, next_seed);
}

TEST(CudaBackwardSm80, CallerWorkspace) {
  SKIP_WITHOUT_GPU();
  const Capabilities caps = portable_capabilities();
  ASSERT_FALSE(caps.dtypes.empty());
  expect_backward_caller_workspace(caps, kPortable);
}

}  // namespace
}  // namespace flashattn::testing
