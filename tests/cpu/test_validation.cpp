// Every invalid-input class of DESIGN.md §1: the call returns an error whose message names the argument
// and the rule, and no output byte is written (outputs hold a sentinel pattern that must survive).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "flashattn/flashattn.hpp"

namespace flashattn {
namespace {

constexpr unsigned char kSentinel = 0xAB;

/// A valid small problem (B 2, Sq 5, Sk 7, H 4, Hk 2, D 8, Dv 8, fp32) with sentinel-filled outputs.
class ValidationTest : public ::testing::Test {
 protected:
  static constexpr int B = 2, Sq = 5, Sk = 7, H = 4, Hk = 2, D = 8;

  void SetUp() override {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    for (auto* buffer : {&q_, &k_, &v_, &dout_}) {
      for (float& x : *buffer) x = normal(rng);
    }
    std::memset(out_.data(), kSentinel, out_.size() * sizeof(float));
    std::memset(lse_.data(), kSentinel, lse_.size() * sizeof(float));
    for (auto* grad : {&dq_, &dk_, &dv_}) std::memset(grad->data(), kSentinel, grad->size() * sizeof(float));
    fwd_.q = TensorView::contiguous(q_.data(), DType::fp32, {B, Sq, H, D});
    fwd_.k = TensorView::contiguous(k_.data(), DType::fp32, {B, Sk, Hk, D});
    fwd_.v = TensorView::contiguous(v_.data(), DType::fp32, {B, Sk, Hk, D});
    fwd_.out = TensorView::contiguous(out_.data(), DType::fp32, {B, Sq, H, D});
    fwd_.lse = TensorView::contiguous(lse_.data(), DType::fp32, {B, H, Sq});
  }

  BackwardArgs backward_args() {
    BackwardArgs args;
    static_cast<AttentionArgs&>(args) = fwd_;
    args.out = fwd_.out;
    args.lse = fwd_.lse;
    args.dout = TensorView::contiguous(dout_.data(), DType::fp32, {B, Sq, H, D});
    args.dq = TensorView::contiguous(dq_.data(), DType::fp32, {B, Sq, H, D});
    args.dk = TensorView::contiguous(dk_.data(), DType::fp32, {B, Sk, Hk, D});
    args.dv = TensorView::contiguous(dv_.data(), DType::fp32, {B, Sk, Hk, D});
    return args;
  }

  static bool untouched(const std::vector<float>& buffer) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(buffer.data());
    for (std::size_t i = 0; i < buffer.size() * sizeof(float); ++i) {
      if (bytes[i] != kSentinel) return false;
    }
    return true;
  }

  /// Applies `mutate` to a valid forward call and expects `code` with a message containing `needle`,
  /// from both forward() and is_supported(), with out and lse untouched.
  void expect_forward_rejected(const std::function<void(ForwardArgs&)>& mutate, const std::string& needle,
                               StatusCode code = StatusCode::invalid_argument) {
    ForwardArgs args = fwd_;
    mutate(args);
    RunInfo info;
    info.kernel = "untouched";
    const Status status = forward(args, &info);
    EXPECT_EQ(status.code(), code) << status.to_string();
    EXPECT_NE(status.message().find(needle), std::string::npos)
        << "message \"" << status.message() << "\" lacks \"" << needle << "\"";
    EXPECT_EQ(is_supported(args).code(), code);
    EXPECT_TRUE(untouched(out_)) << "out was written";
    EXPECT_TRUE(untouched(lse_)) << "lse was written";
    EXPECT_EQ(info.kernel, "untouched") << "RunInfo filled on error";
  }

  void expect_backward_rejected(const std::function<void(BackwardArgs&)>& mutate, const std::string& needle) {
    BackwardArgs args = backward_args();
    mutate(args);
    const Status status = backward(args);
    EXPECT_EQ(status.code(), StatusCode::invalid_argument) << status.to_string();
    EXPECT_NE(status.message().find(needle), std::string::npos)
        << "message \"" << status.message() << "\" lacks \"" << needle << "\"";
    EXPECT_EQ(is_supported(args).code(), StatusCode::invalid_argument);
    EXPECT_TRUE(untouched(dq_) && untouched(dk_) && untouched(dv_)) << "a gradient was written";
  }

  std::vector<float> q_ = std::vector<float>(B * Sq * H * D), k_ = std::vector<float>(B * Sk * Hk * D),
                     v_ = std::vector<float>(B * Sk * Hk * D), out_ = std::vector<float>(B * Sq * H * D),
                     lse_ = std::vector<float>(B * H * Sq), dout_ = std::vector<float>(B * Sq * H * D),
                     dq_ = std::vector<float>(B * Sq * H * D), dk_ = std::vector<float>(B * Sk * Hk * D),
                     dv_ = std::vector<float>(B * Sk * Hk * D);
  ForwardArgs fwd_;
};

// The positive control: the same arguments unmodified run and overwrite the sentinel, so the checks
// above can tell a rejected call from one that wrote.
TEST_F(ValidationTest, ValidCallRunsAndWrites) {
  RunInfo info;
  ASSERT_TRUE(forward(fwd_, &info).ok());
  EXPECT_FALSE(untouched(out_));
  EXPECT_TRUE(info.launched);
  EXPECT_EQ(info.kernel, "fwd_cpu_fp32");
  ASSERT_TRUE(backward(backward_args()).ok());
  EXPECT_FALSE(untouched(dq_));
}

TEST_F(ValidationTest, MissingInput) {
  expect_forward_rejected([](ForwardArgs& a) { a.k = TensorView{}; }, "k: required");
}

TEST_F(ValidationTest, WrongRank) {
  expect_forward_rejected(
      [&](ForwardArgs& a) {
        a.q = TensorView::contiguous(q_.data(), DType::fp32, {B * Sq, H, D});
      },
      "q: expected rank 4");
}

TEST_F(ValidationTest, NegativeLength) {
  expect_forward_rejected([](ForwardArgs& a) { a.k.shape[1] = -3; }, "k: shape[1] must be >= 0");
}

TEST_F(ValidationTest, NonContiguousLastDimension) {
  expect_forward_rejected([](ForwardArgs& a) { a.v.stride[3] = 2; },
                          "v: the last dimension must be contiguous");
}

TEST_F(ValidationTest, BatchMismatch) {
  expect_forward_rejected(
      [](ForwardArgs& a) {
        a.k.shape[0] = 1;
        a.v.shape[0] = 1;
      },
      "k: batch");
}

TEST_F(ValidationTest, KeyValueShapeMismatch) {
  expect_forward_rejected([](ForwardArgs& a) { a.v.shape[1] = Sk - 1; }, "v: shape must match k's");
}

TEST_F(ValidationTest, HeadDimMismatch) {
  expect_forward_rejected([](ForwardArgs& a) { a.k.shape[3] = D / 2; }, "k: head dim");
}

TEST_F(ValidationTest, HeadsNotDivisibleByKvHeads) {
  expect_forward_rejected(
      [](ForwardArgs& a) {
        a.k.shape[2] = 3;
        a.v.shape[2] = 3;
      },
      "H % Hk == 0");
}

TEST_F(ValidationTest, OutputShapeMismatch) {
  expect_forward_rejected([](ForwardArgs& a) { a.out.shape[1] = Sq + 1; }, "out: shape must be (2, 5, 4, 8)");
}

TEST_F(ValidationTest, MixedDtypes) {
  expect_forward_rejected([](ForwardArgs& a) { a.v.dtype = DType::bf16; }, "v: dtype must be fp32");
}

TEST_F(ValidationTest, UnsupportedDtype) {
  expect_forward_rejected(
      [](ForwardArgs& a) { a.q.dtype = a.k.dtype = a.v.dtype = a.out.dtype = DType::i32; },
      "q: dtype must be fp16, bf16 or fp32");
}

TEST_F(ValidationTest, LseDtypeAndShape) {
  expect_forward_rejected([](ForwardArgs& a) { a.lse.dtype = DType::fp16; }, "lse: dtype must be fp32");
  expect_forward_rejected([](ForwardArgs& a) { a.lse.shape[2] = Sq + 1; }, "lse: shape must be (2, 4, 5)");
}

TEST_F(ValidationTest, MisalignedPointer) {
  expect_forward_rejected([](ForwardArgs& a) { a.q.data = static_cast<char*>(a.q.data) + 2; },
                          "q: data pointer is not aligned");
}

TEST_F(ValidationTest, NullDataWithElements) {
  expect_forward_rejected([](ForwardArgs& a) { a.out.data = nullptr; }, "out: data is null");
}

TEST_F(ValidationTest, BadOptions) {
  expect_forward_rejected([](ForwardArgs& a) { a.softcap = -1.0f; }, "softcap: must be finite and >= 0");
  expect_forward_rejected([](ForwardArgs& a) { a.softmax_scale = std::numeric_limits<float>::quiet_NaN(); },
                          "softmax_scale: must be finite");
  expect_forward_rejected([](ForwardArgs& a) { a.window_left = -2; }, "window_left: must be >= -1");
  expect_forward_rejected([](ForwardArgs& a) { a.window_right = -5; }, "window_right: must be >= -1");
  expect_forward_rejected(
      [](ForwardArgs& a) {
        a.causal = true;
        a.window_right = 3;
      },
      "window_right: causal means window_right = 0");
}

TEST_F(ValidationTest, AlibiSlopes) {
  std::vector<float> slopes(H + 1, 0.5f);
  expect_forward_rejected(
      [&](ForwardArgs& a) { a.alibi_slopes = TensorView::contiguous(slopes.data(), DType::fp32, {H + 1}); },
      "alibi_slopes: shape must be (4)");
  expect_forward_rejected(
      [&](ForwardArgs& a) { a.alibi_slopes = TensorView::contiguous(slopes.data(), DType::fp16, {H}); },
      "alibi_slopes: dtype must be fp32");
}

TEST_F(ValidationTest, UnsupportedDevice) {
  // No CUDA device in this process (CPU-only build or no GPU): an `unsupported` error, nothing written.
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  expect_forward_rejected(
      [](ForwardArgs& a) {
        a.device = {DeviceKind::cuda, 0};
      },
      "device:", StatusCode::unsupported);
}

TEST_F(ValidationTest, BackwardNeedsForwardResults) {
  expect_backward_rejected([](BackwardArgs& a) { a.lse = TensorView{}; }, "lse: required by the backward");
  expect_backward_rejected([](BackwardArgs& a) { a.dout.shape[2] = 2; }, "dout: shape must be");
  expect_backward_rejected([](BackwardArgs& a) { a.dk.shape[2] = H; }, "dk: shape must be (2, 7, 2, 8)");
  expect_backward_rejected([](BackwardArgs& a) { a.dv.dtype = DType::bf16; }, "dv: dtype must be fp32");
}

TEST_F(ValidationTest, ForwardWorkspace) {
  expect_forward_rejected([](ForwardArgs& a) { a.workspace_bytes = 64; },
                          "workspace: workspace_bytes is 64 but workspace is null");
  // The CPU backend needs none, nor does a CUDA call whose tiles are never cut (7 keys).
  EXPECT_EQ(forward_workspace_size(fwd_), 0u);
  ForwardArgs cuda = fwd_;
  cuda.device = Device{DeviceKind::cuda, 0};
  EXPECT_EQ(forward_workspace_size(cuda), 0u);
}

TEST_F(ValidationTest, BackwardWorkspace) {
  expect_backward_rejected([](BackwardArgs& a) { a.workspace_bytes = 64; },
                           "workspace: workspace_bytes is 64 but workspace is null");
  // The CPU backend needs none; an invalid call reports 0 and leaves the reason to backward().
  EXPECT_EQ(backward_workspace_size(backward_args()), 0u);
  BackwardArgs cuda = backward_args();
  cuda.device = Device{DeviceKind::cuda, 0};
  // Per (token, head) of B * Sq = 10 tokens and H = 4 heads: lse and D (160 bytes each) and D = 8 fp32 of
  // dQ (1280 bytes), then the tile counter (4 bytes), each part rounded up to 256 bytes; deterministic adds
  // B * H * ceil(Sq / 64) ints.
  EXPECT_EQ(backward_workspace_size(cuda), 256u + 256u + 1280u + 256u);
  cuda.deterministic = true;
  EXPECT_EQ(backward_workspace_size(cuda), 256u + 256u + 1280u + 256u + 256u);
  cuda.lse = TensorView{};
  EXPECT_EQ(backward_workspace_size(cuda), 0u);
}

/// Varlen problem: 3 sequences in q (total 6) and k (total 9).
class VarlenValidationTest : public ValidationTest {
 protected:
  void SetUp() override {
    ValidationTest::SetUp();
    fwd_.q = TensorView::contiguous(q_.data(), DType::fp32, {6, H, D});
    fwd_.k = TensorView::contiguous(k_.data(), DType::fp32, {9, Hk, D});
    fwd_.v = TensorView::contiguous(v_.data(), DType::fp32, {9, Hk, D});
    fwd_.out = TensorView::contiguous(out_.data(), DType::fp32, {6, H, D});
    fwd_.lse = TensorView::contiguous(lse_.data(), DType::fp32, {H, 6});
    fwd_.cu_seqlens_q = TensorView::contiguous(cu_q_.data(), DType::i32, {4});
    fwd_.cu_seqlens_k = TensorView::contiguous(cu_k_.data(), DType::i32, {4});
  }
  std::vector<std::int32_t> cu_q_{0, 2, 2, 6}, cu_k_{0, 4, 5, 9}, used_{4, 1, 2};
};

TEST_F(VarlenValidationTest, ValidVarlenCallRuns) {
  fwd_.seqused_k = TensorView::contiguous(used_.data(), DType::i32, {3});
  ASSERT_TRUE(forward(fwd_).ok());
  EXPECT_FALSE(untouched(out_));
}

TEST_F(VarlenValidationTest, NonMonotoneCuSeqlens) {
  cu_q_ = {0, 4, 2, 6};
  expect_forward_rejected([&](ForwardArgs&) {}, "cu_seqlens_q: must be non-decreasing");
}

TEST_F(VarlenValidationTest, CuSeqlensMustStartAtZeroAndFitTotal) {
  cu_k_ = {1, 4, 5, 9};
  expect_forward_rejected([&](ForwardArgs&) {}, "cu_seqlens_k: must start at 0");
  cu_k_ = {0, 4, 5, 10};
  expect_forward_rejected([&](ForwardArgs&) {}, "cu_seqlens_k: last entry (10) exceeds total_k");
}

TEST_F(VarlenValidationTest, CuSeqlensCountAndDtype) {
  expect_forward_rejected([&](ForwardArgs& a) { a.cu_seqlens_k.shape[0] = 3; },
                          "cu_seqlens_k: must have B + 1 = 4");
  expect_forward_rejected([&](ForwardArgs& a) { a.cu_seqlens_q.dtype = DType::fp32; },
                          "cu_seqlens_q: dtype must be i32");
  expect_forward_rejected([&](ForwardArgs& a) { a.cu_seqlens_k = TensorView{}; }, "cu_seqlens_k: required");
}

TEST_F(VarlenValidationTest, SequsedKOutOfRange) {
  used_ = {4, 2, 2};
  expect_forward_rejected(
      [&](ForwardArgs& a) { a.seqused_k = TensorView::contiguous(used_.data(), DType::i32, {3}); },
      "seqused_k: entry 1 (2) must lie in [0, 1]");
}

TEST_F(VarlenValidationTest, MaxSeqlenTooSmall) {
  expect_forward_rejected([](ForwardArgs& a) { a.max_seqlen_q = 3; }, "max_seqlen_q: 3 is less than");
}

TEST_F(ValidationTest, SequsedKNeedsVarlen) {
  std::vector<std::int32_t> used{1, 1};
  expect_forward_rejected(
      [&](ForwardArgs& a) { a.seqused_k = TensorView::contiguous(used.data(), DType::i32, {2}); },
      "seqused_k: only allowed with varlen inputs");
}

}  // namespace
}  // namespace flashattn
