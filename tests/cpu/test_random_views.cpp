// Random strided views of fixed buffers, on the CPU: whatever the shapes (empty ones included), the layouts
// (any order of the leading dimensions, padding between rows and heads) and the options (masks, windows,
// softcap, ALiBi, GQA, Dv != D), a call either is refused with nothing written, or writes exactly the
// elements its output views describe — the padding and gaps around them keep their sentinel — with values
// attention can produce: out inside the range of v (each row is a convex combination of v rows, or 0 when it
// sees no key), lse finite or -inf, gradients finite. A quarter of the problems get one invalid argument as
// well, and must be refused with an error naming it and nothing written. Under scripts/test-sanitizers every
// read is also checked to stay inside the buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "flashattn/flashattn.hpp"

namespace flashattn {
namespace {

constexpr std::int64_t kCapacity = 1 << 14;  ///< Floats in every buffer; each view fits inside it.
constexpr unsigned char kSentinel = 0xAB;

/// A shape and strides (elements) whose last dimension is contiguous.
struct Layout {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> stride;

  std::int64_t max_offset() const {
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0) return -1;  // no element
      offset += (shape[i] - 1) * stride[i];
    }
    return offset;
  }
  /// Every element's offset (distinct: the layouts below are injective).
  std::vector<std::int64_t> offsets() const {
    std::vector<std::int64_t> result;
    if (max_offset() < 0) return result;
    std::vector<std::int64_t> index(shape.size(), 0);
    while (true) {
      std::int64_t offset = 0;
      for (std::size_t i = 0; i < shape.size(); ++i) offset += index[i] * stride[i];
      result.push_back(offset);
      int axis = static_cast<int>(shape.size()) - 1;
      while (axis >= 0 && ++index[axis] == shape[axis]) index[axis--] = 0;
      if (axis < 0) return result;
    }
  }
  TensorView view(float* data) const {
    TensorView v;
    v.data = data;
    v.dtype = DType::fp32;
    v.rank = static_cast<int>(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) v.shape[i] = shape[i], v.stride[i] = stride[i];
    return v;
  }
};

/// `shape` laid out with its last dimension contiguous and the others nested in a random order, each level
/// padded by 0-2 elements: an injective layout, as a framework's permuted or sliced tensor would be.
Layout random_layout(std::vector<std::int64_t> shape, std::mt19937& rng) {
  std::uniform_int_distribution<int> pad(0, 2);
  const int rank = static_cast<int>(shape.size());
  Layout layout{shape, std::vector<std::int64_t>(rank)};
  layout.stride[rank - 1] = 1;
  std::int64_t extent = std::max<std::int64_t>(shape[rank - 1], 1) + pad(rng);
  std::vector<int> order(rank - 1);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (int axis : order) {
    layout.stride[axis] = extent;
    extent = extent * std::max<std::int64_t>(shape[axis], 1) + pad(rng);
  }
  return layout;
}

struct Buffer {
  std::vector<float> data = std::vector<float>(kCapacity);
  void poison() { std::memset(data.data(), kSentinel, data.size() * sizeof(float)); }
  bool untouched(std::int64_t offset) const {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &data[offset], sizeof(float));
    return std::all_of(bytes, bytes + sizeof(float), [](unsigned char b) { return b == kSentinel; });
  }
  /// Offsets outside `layout` that were written, and offsets inside it that were not (the first of each).
  void expect_written_exactly(const Layout& layout, bool written, const std::string& what) const {
    std::vector<char> inside(kCapacity, 0);
    for (std::int64_t offset : layout.offsets()) inside[offset] = 1;
    for (std::int64_t offset = 0; offset < kCapacity; ++offset) {
      const bool expected_untouched = !written || !inside[offset];
      ASSERT_EQ(untouched(offset), expected_untouched)
          << what << ": element " << offset << (inside[offset] ? " of the view" : " outside the view")
          << (expected_untouched ? " was written" : " was not written");
    }
  }
};

/// One random problem: shapes, layouts and options. Varlen: every sequence's own lengths, packed (cu_seqlens
/// cover every row), and optionally fewer keys used (seqused_k).
struct Problem {
  int batch, seqlen_q, seqlen_k, heads, heads_kv, head_dim, head_dim_v;
  bool varlen = false;
  std::vector<std::int32_t> cu_seqlens_q, cu_seqlens_k, seqused_k;
  Layout q, k, v, out, lse, dout, dq, dk, dv;
  bool causal = false;
  int window_left = -1, window_right = -1;
  float softcap = 0.0f;
  bool alibi = false;

  std::string describe() const {
    return std::string(varlen ? "varlen " : "") + (seqused_k.empty() ? "" : "seqused_k ") + "B " +
           std::to_string(batch) + " Sq " + std::to_string(seqlen_q) + " Sk " + std::to_string(seqlen_k) +
           " H " + std::to_string(heads) + "/" + std::to_string(heads_kv) + " D " + std::to_string(head_dim) +
           "/" + std::to_string(head_dim_v) + (causal ? " causal" : "") + " window " +
           std::to_string(window_left) + "," + std::to_string(window_right) + " softcap " +
           std::to_string(softcap) + (alibi ? " alibi" : "");
  }
};

Problem random_problem(std::mt19937& rng, bool varlen) {
  auto pick = [&rng](std::initializer_list<int> values) {
    return *(values.begin() + std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng));
  };
  Problem p;
  p.varlen = varlen;
  p.batch = pick({0, 1, 2, 3});
  p.seqlen_q = pick({0, 1, 2, 5, 9});
  p.seqlen_k = pick({0, 1, 3, 7, 11});
  p.heads_kv = pick({1, 2, 3});
  p.heads = p.heads_kv * pick({1, 2, 3});
  p.head_dim = pick({4, 8, 16});
  p.head_dim_v = pick({0, 1}) ? p.head_dim : p.head_dim / 2;
  const std::int64_t b = p.batch, h = p.heads, hk = p.heads_kv, d = p.head_dim, dv = p.head_dim_v;
  if (varlen) {
    // Each sequence its own lengths up to seqlen_q / seqlen_k (empty ones included).
    p.cu_seqlens_q = {0};
    p.cu_seqlens_k = {0};
    const bool used = pick({0, 1}) != 0;
    for (int i = 0; i < p.batch; ++i) {
      const int sk = std::uniform_int_distribution<int>(0, p.seqlen_k)(rng);
      p.cu_seqlens_q.push_back(p.cu_seqlens_q.back() +
                               std::uniform_int_distribution<int>(0, p.seqlen_q)(rng));
      p.cu_seqlens_k.push_back(p.cu_seqlens_k.back() + sk);
      if (used) p.seqused_k.push_back(std::uniform_int_distribution<int>(0, sk)(rng));
    }
    const std::int64_t tq = p.cu_seqlens_q.back(), tk = p.cu_seqlens_k.back();
    p.q = random_layout({tq, h, d}, rng);
    p.k = random_layout({tk, hk, d}, rng);
    p.v = random_layout({tk, hk, dv}, rng);
    p.out = random_layout({tq, h, dv}, rng);
    p.lse = random_layout({h, tq}, rng);
    p.dout = random_layout({tq, h, dv}, rng);
    p.dq = random_layout({tq, h, d}, rng);
    p.dk = random_layout({tk, hk, d}, rng);
    p.dv = random_layout({tk, hk, dv}, rng);
  } else {
    const std::int64_t sq = p.seqlen_q, sk = p.seqlen_k;
    p.q = random_layout({b, sq, h, d}, rng);
    p.k = random_layout({b, sk, hk, d}, rng);
    p.v = random_layout({b, sk, hk, dv}, rng);
    p.out = random_layout({b, sq, h, dv}, rng);
    p.lse = random_layout({b, h, sq}, rng);
    p.dout = random_layout({b, sq, h, dv}, rng);
    p.dq = random_layout({b, sq, h, d}, rng);
    p.dk = random_layout({b, sk, hk, d}, rng);
    p.dv = random_layout({b, sk, hk, dv}, rng);
  }
  switch (pick({0, 1, 2})) {
    case 1:
      p.causal = true;
      break;
    case 2:
      p.window_left = pick({-1, 0, 1, 3});
      p.window_right = pick({-1, 0, 2});
      break;
    default:
      break;
  }
  p.softcap = pick({0, 0, 1}) ? 2.0f : 0.0f;
  p.alibi = pick({0, 0, 1}) != 0;
  return p;
}

class RandomViews : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(2026);
    std::normal_distribution<float> normal;
    for (Buffer* input : {&q_, &k_, &v_, &dout_}) {
      for (float& x : input->data) x = normal(rng);
    }
    for (float& slope : slopes_) slope = std::uniform_real_distribution<float>(0.05f, 1.0f)(rng);
  }

  AttentionArgs attention_args(Problem& p) {
    AttentionArgs args;
    args.q = p.q.view(q_.data.data());
    args.k = p.k.view(k_.data.data());
    args.v = p.v.view(v_.data.data());
    if (p.varlen) {
      const std::int64_t entries = p.batch + 1;
      args.cu_seqlens_q = TensorView::contiguous(p.cu_seqlens_q.data(), DType::i32, {entries});
      args.cu_seqlens_k = TensorView::contiguous(p.cu_seqlens_k.data(), DType::i32, {entries});
      if (!p.seqused_k.empty()) {
        args.seqused_k = TensorView::contiguous(p.seqused_k.data(), DType::i32, {std::int64_t{p.batch}});
      }
    }
    args.causal = p.causal;
    args.window_left = p.window_left;
    args.window_right = p.window_right;
    args.softcap = p.softcap;
    if (p.alibi) args.alibi_slopes = TensorView::contiguous(slopes_.data(), DType::fp32, {p.heads});
    return args;
  }

  /// The range of the values v's view holds (every out element lies in it, or is 0).
  std::pair<float, float> v_range(const Problem& p) const {
    float lo = 0.0f, hi = 0.0f;
    for (std::int64_t offset : p.v.offsets()) {
      lo = std::min(lo, v_.data[offset]);
      hi = std::max(hi, v_.data[offset]);
    }
    return {lo, hi};
  }

  /// kProblems random problems, a quarter broken (kBreakages), each checked as the file's comment says.
  void run_problems(bool varlen, unsigned seed);

  Buffer q_, k_, v_, out_, lse_, dout_, dq_, dk_, dv_;
  std::vector<float> slopes_ = std::vector<float>(9);
};

/// One argument made invalid, and the name its error must start with.
struct Breakage {
  const char* argument;
  void (*apply)(ForwardArgs&, float* slopes);
};
constexpr Breakage kBreakages[] = {
    {"out", [](ForwardArgs& a, float*) { a.out.stride[a.out.rank - 1] = 2; }},
    {"k", [](ForwardArgs& a, float*) { ++a.k.shape[a.k.rank - 1]; }},
    {"v", [](ForwardArgs& a, float*) { ++a.v.shape[0]; }},
    {"lse", [](ForwardArgs& a, float*) { a.lse.dtype = DType::fp16; }},
    {"window_left", [](ForwardArgs& a, float*) { a.window_left = -2; }},
    {"softcap", [](ForwardArgs& a, float*) { a.softcap = -1.0f; }},
    {"alibi_slopes",
     [](ForwardArgs& a, float* slopes) {
       a.alibi_slopes = TensorView::contiguous(slopes, DType::fp32, {a.q.shape[a.q.rank - 2] + 1});
     }},
};

TEST_F(RandomViews, CallsWriteExactlyTheirOutputViews) { run_problems(/*varlen=*/false, 39); }
TEST_F(RandomViews, VarlenCallsWriteExactlyTheirOutputViews) { run_problems(/*varlen=*/true, 40); }

void RandomViews::run_problems(bool varlen, unsigned seed) {
  std::mt19937 rng(seed);
  int forwards = 0, backwards = 0, refused = 0;
  constexpr int kProblems = 400;
  for (int i = 0; i < kProblems; ++i) {
    Problem p = random_problem(rng, varlen);
    SCOPED_TRACE(p.describe());
    for (const Layout* layout : {&p.q, &p.k, &p.v, &p.out, &p.lse, &p.dout, &p.dq, &p.dk, &p.dv})
      ASSERT_LT(layout->max_offset(), kCapacity) << "the generator keeps every view inside its buffer";

    ForwardArgs fwd;
    static_cast<AttentionArgs&>(fwd) = attention_args(p);
    fwd.out = p.out.view(out_.data.data());
    fwd.lse = p.lse.view(lse_.data.data());
    const Breakage* breakage = nullptr;
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
      breakage = &kBreakages[std::uniform_int_distribution<std::size_t>(0, std::size(kBreakages) - 1)(rng)];
      breakage->apply(fwd, slopes_.data());
    }
    out_.poison();
    lse_.poison();
    const Status forward_status = forward(fwd);
    out_.expect_written_exactly(p.out, forward_status.ok(), "out");
    lse_.expect_written_exactly(p.lse, forward_status.ok(), "lse");
    if (breakage != nullptr) {
      ++refused;
      EXPECT_EQ(forward_status.code(), StatusCode::invalid_argument) << "invalid " << breakage->argument;
      EXPECT_EQ(forward_status.message().rfind(std::string(breakage->argument) + ":", 0), 0u)
          << "the error names " << breakage->argument << ": " << forward_status.message();
      continue;
    }
    ASSERT_TRUE(forward_status.ok()) << forward_status.message();
    ++forwards;
    const auto [lo, hi] = v_range(p);
    const float slack = 1e-5f * (1.0f + hi - lo);
    for (std::int64_t offset : p.out.offsets()) {
      const float x = out_.data[offset];
      ASSERT_TRUE(std::isfinite(x) && x >= lo - slack && x <= hi + slack)
          << "out " << x << " outside v's range [" << lo << ", " << hi << "]";
    }
    for (std::int64_t offset : p.lse.offsets()) {
      const float x = lse_.data[offset];
      ASSERT_TRUE(std::isfinite(x) || x == -INFINITY) << "lse " << x;
    }

    BackwardArgs bwd;
    static_cast<AttentionArgs&>(bwd) = attention_args(p);
    bwd.out = fwd.out;
    bwd.lse = fwd.lse;
    bwd.dout = p.dout.view(dout_.data.data());
    bwd.dq = p.dq.view(dq_.data.data());
    bwd.dk = p.dk.view(dk_.data.data());
    bwd.dv = p.dv.view(dv_.data.data());
    dq_.poison();
    dk_.poison();
    dv_.poison();
    const Status backward_status = backward(bwd);
    ASSERT_TRUE(backward_status.ok()) << backward_status.message();
    dq_.expect_written_exactly(p.dq, true, "dq");
    dk_.expect_written_exactly(p.dk, true, "dk");
    dv_.expect_written_exactly(p.dv, true, "dv");
    ++backwards;
    for (const auto& [buffer, layout] :
         {std::pair{&dq_, &p.dq}, std::pair{&dk_, &p.dk}, std::pair{&dv_, &p.dv}}) {
      for (std::int64_t offset : layout->offsets())
        ASSERT_TRUE(std::isfinite(buffer->data[offset])) << "gradient " << buffer->data[offset];
    }
  }
  // Both outcomes were exercised (a quarter of the problems broken, on average).
  EXPECT_GT(refused, kProblems / 8);
  EXPECT_GT(forwards, kProblems / 2);
  EXPECT_EQ(backwards, forwards);
}

}  // namespace
}  // namespace flashattn
