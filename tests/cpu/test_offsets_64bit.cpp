// 64-bit offsets (DESIGN.md §1): a batch whose second entry starts more than 2^31 elements past the first
// must be addressed exactly. The views live in sparse anonymous mappings (MAP_NORESERVE), so only the
// pages actually written are backed by memory: the test needs a few MiB, not the 8 GiB it spans. The
// far batch entry's output must be bitwise identical to the same problem computed from compact tensors;
// an offset truncated to 32 bits reads the wrong (untouched, zero) pages or faults.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/numeric.hpp"
#include "flashattn/flashattn.hpp"

namespace flashattn {
namespace {

constexpr int kSeq = 64, kHeads = 2, kDim = 64;
constexpr std::int64_t kTokenElements = std::int64_t{kHeads} * kDim;
/// Batch stride in elements: past 2^31, and a multiple of the token size so rows stay aligned.
constexpr std::int64_t kFarStride = (std::int64_t{1} << 31) + 4 * kTokenElements;

/// A sparse fp16 buffer of `elements` elements; unmapped on destruction.
class SparseBuffer {
 public:
  explicit SparseBuffer(std::int64_t elements) : bytes_(static_cast<std::size_t>(elements) * 2) {
    data_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  ~SparseBuffer() {
    if (data_ != MAP_FAILED) munmap(data_, bytes_);
  }
  SparseBuffer(const SparseBuffer&) = delete;
  SparseBuffer& operator=(const SparseBuffer&) = delete;
  bool ok() const { return data_ != MAP_FAILED; }
  std::uint16_t* at(std::int64_t element) const { return static_cast<std::uint16_t*>(data_) + element; }

 private:
  std::size_t bytes_;
  void* data_;
};

TEST(Offsets64Bit, FarBatchEntryMatchesCompactProblem) {
  // Two batch entries kFarStride apart, for q, out (and k, v in their own mappings).
  const std::int64_t span = kFarStride + kSeq * kTokenElements;
  SparseBuffer q(span), k(span), v(span), out(span);
  if (!q.ok() || !k.ok() || !v.ok() || !out.ok()) GTEST_SKIP() << "the system refused a sparse mapping";

  std::mt19937 rng(64);
  std::normal_distribution<float> normal;
  const std::int64_t entry = kSeq * kTokenElements;  // elements of one batch entry
  std::vector<std::uint16_t> compact_q(entry), compact_k(entry), compact_v(entry), compact_out(entry);
  for (auto* compact : {&compact_q, &compact_k, &compact_v}) {
    for (auto& x : *compact) x = numeric::float_to_fp16(normal(rng));
  }
  // Entry 0 gets other data (so reading it by mistake shows); entry 1, far away, gets the compact data.
  for (const auto& [buffer, compact] : {std::pair{&q, &compact_q}, {&k, &compact_k}, {&v, &compact_v}}) {
    for (std::int64_t i = 0; i < entry; ++i) *buffer->at(i) = numeric::float_to_fp16(normal(rng));
    std::memcpy(buffer->at(kFarStride), compact->data(), entry * 2);
  }

  const auto far_view = [](const SparseBuffer& buffer) {
    return TensorView::strided(buffer.at(0), DType::fp16, {2, kSeq, kHeads, kDim},
                               {kFarStride, kTokenElements, kDim, 1});
  };
  ForwardArgs far;
  far.q = far_view(q);
  far.k = far_view(k);
  far.v = far_view(v);
  far.out = far_view(out);
  far.causal = true;
  ASSERT_TRUE(forward(far).ok());

  ForwardArgs compact = far;
  compact.q = TensorView::contiguous(compact_q.data(), DType::fp16, {1, kSeq, kHeads, kDim});
  compact.k = TensorView::contiguous(compact_k.data(), DType::fp16, {1, kSeq, kHeads, kDim});
  compact.v = TensorView::contiguous(compact_v.data(), DType::fp16, {1, kSeq, kHeads, kDim});
  compact.out = TensorView::contiguous(compact_out.data(), DType::fp16, {1, kSeq, kHeads, kDim});
  ASSERT_TRUE(forward(compact).ok());

  EXPECT_EQ(std::memcmp(out.at(kFarStride), compact_out.data(), entry * 2), 0)
      << "the batch entry 2^31 elements away was not computed from its own data";
}

}  // namespace
}  // namespace flashattn
