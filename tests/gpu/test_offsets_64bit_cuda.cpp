// 64-bit offsets on the GPU (DESIGN.md §1): a batch whose second entry starts more than 2^31 elements past
// the first is addressed exactly by every CUDA path, forward and backward, and by decoding from (and
// appending to) a cache whose entries (dense) or pages (paged) lie that far apart. The far entry's outputs
// must be bitwise identical to the same problem computed from compact tensors (the backward with
// deterministic = true, so dQ's fp32 sums are ordered); an offset truncated to 32 bits reads entry 0's
// different data, writes elsewhere (the poisoned outputs stay NaN) or faults. Each strided tensor spans 4 GiB
// of device memory, 32 GiB in all; a device that cannot hold them skips. (The CPU backend's counterpart:
// test_offsets_64bit.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/numeric.hpp"
#include "flashattn/device.hpp"
#include "flashattn/flashattn.hpp"
#include "flashattn/kvcache.hpp"
#include "testing/device_memory.hpp"
#include "testing/sweeps.hpp"

namespace flashattn::testing {
namespace {

constexpr Device kDevice{DeviceKind::cuda, 0};
constexpr int kSeq = 200;  // not a multiple of any tile
constexpr int kHeads = 2;
constexpr std::uint16_t kNaN16 = 0x7fff;  // a NaN in fp16 and in bf16

/// Device memory of `elements` 2-byte elements (absent when the device refuses it); freed on destruction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::int64_t elements) {
    if (!device_memory::allocate(kDevice, static_cast<std::size_t>(elements) * 2, &data_).ok())
      data_ = nullptr;
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) device_memory::release(kDevice, data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  bool ok() const { return data_ != nullptr; }
  std::uint16_t* at(std::int64_t element) const { return static_cast<std::uint16_t*>(data_) + element; }

 private:
  void* data_ = nullptr;
};

/// One operand in two layouts: `far` holds a batch of two entries kFarStride elements apart (entry 0 other
/// data, entry 1 the problem), `compact` the problem alone as a batch of one.
struct Operand {
  Operand(std::int64_t far_stride, std::int64_t entry)
      : stride(far_stride), elements(entry), far(far_stride + entry), compact(entry) {}
  bool ok() const { return far.ok() && compact.ok(); }

  /// Entry 1 of `far` and `compact` get `values`, entry 0 of `far` gets `other`.
  void upload(const std::vector<std::uint16_t>& values, const std::vector<std::uint16_t>& other) const {
    const std::size_t bytes = values.size() * 2;
    ASSERT_TRUE(device_memory::copy_to_device(kDevice, far.at(0), other.data(), bytes).ok());
    ASSERT_TRUE(device_memory::copy_to_device(kDevice, far.at(stride), values.data(), bytes).ok());
    ASSERT_TRUE(device_memory::copy_to_device(kDevice, compact.at(0), values.data(), bytes).ok());
  }
  /// Both copies of the problem poisoned with NaN, so an element no call writes shows.
  void poison() const {
    const std::vector<std::uint16_t> nan(static_cast<std::size_t>(elements), kNaN16);
    upload(nan, nan);
  }

  /// Entry 1 of `far` and `compact`, downloaded.
  std::vector<std::uint16_t> far_entry() const { return download(far.at(stride)); }
  std::vector<std::uint16_t> compact_entry() const { return download(compact.at(0)); }

  TensorView far_view(DType dtype, int head_dim) const {
    return TensorView::strided(far.at(0), dtype, {2, kSeq, kHeads, head_dim},
                               {stride, std::int64_t{kHeads} * head_dim, head_dim, 1});
  }
  TensorView compact_view(DType dtype, int head_dim) const {
    return TensorView::contiguous(compact.at(0), dtype, {1, kSeq, kHeads, head_dim});
  }

  std::int64_t stride;
  std::int64_t elements;
  DeviceBuffer far;
  DeviceBuffer compact;

 private:
  std::vector<std::uint16_t> download(const std::uint16_t* source) const {
    std::vector<std::uint16_t> host(static_cast<std::size_t>(elements));
    EXPECT_TRUE(device_memory::copy_to_host(kDevice, host.data(), source, host.size() * 2).ok());
    return host;
  }
};

/// fp32 lse of both layouts: (2, H, Sq) and (1, H, Sq), contiguous.
struct Lse {
  Lse() {
    device_memory::allocate(kDevice, 2 * kRows * sizeof(float), &far);
    device_memory::allocate(kDevice, kRows * sizeof(float), &compact);
  }
  ~Lse() {
    device_memory::release(kDevice, far);
    device_memory::release(kDevice, compact);
  }
  static constexpr std::int64_t kRows = std::int64_t{kHeads} * kSeq;
  void* far = nullptr;
  void* compact = nullptr;
};

std::vector<std::uint16_t> random_values(std::int64_t count, DType dtype, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<std::uint16_t> values(static_cast<std::size_t>(count));
  for (auto& x : values)
    x = dtype == DType::bf16 ? numeric::float_to_bf16(normal(rng)) : numeric::float_to_fp16(normal(rng));
  return values;
}

/// Runs forward and backward on both layouts through `path` and compares the far entry with the compact
/// problem bitwise. Skips when the path has no kernel for both ops or the device lacks the memory.
void expect_far_entry_matches_compact(CudaPath path) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible";
  const Capabilities fwd = capabilities(kDevice, path, Op::forward);
  const Capabilities bwd = capabilities(kDevice, path, Op::backward);
  if (fwd.dtypes.empty() || bwd.dtypes.empty()) GTEST_SKIP() << "no " << to_string(path) << " kernels here";
  const DType dtype = bwd.dtypes.front();
  const int head_dim = bwd.head_dims.front();
  if (std::find(fwd.head_dims.begin(), fwd.head_dims.end(), head_dim) == fwd.head_dims.end()) {
    GTEST_SKIP() << "no " << to_string(path) << " forward kernel for head dim " << head_dim;
  }
  const std::int64_t token = std::int64_t{kHeads} * head_dim;
  const std::int64_t entry = kSeq * token;
  // Past 2^31 elements, and a multiple of a token so that rows keep their 16-byte alignment.
  const std::int64_t far_stride = (std::int64_t{1} << 31) + 4 * token;

  Operand q(far_stride, entry), k(far_stride, entry), v(far_stride, entry), out(far_stride, entry);
  Operand dout(far_stride, entry), dq(far_stride, entry), dk(far_stride, entry), dv(far_stride, entry);
  const Lse lse;
  for (const Operand* operand : {&q, &k, &v, &out, &dout, &dq, &dk, &dv}) {
    if (!operand->ok()) GTEST_SKIP() << "the device cannot hold 8 tensors of 4 GiB";
  }
  std::uint32_t seed = 64;
  for (const Operand* input : {&q, &k, &v, &dout}) {
    input->upload(random_values(entry, dtype, seed), random_values(entry, dtype, seed + 1));
    seed += 2;
  }
  for (const Operand* output : {&out, &dq, &dk, &dv}) output->poison();

  // The call's arguments on either layout.
  auto view = [&](const Operand& operand, bool far) {
    return far ? operand.far_view(dtype, head_dim) : operand.compact_view(dtype, head_dim);
  };
  auto forward_args = [&](bool far) {
    ForwardArgs args;
    args.device = kDevice;
    args.cuda_path = path;
    args.causal = true;
    args.q = view(q, far);
    args.k = view(k, far);
    args.v = view(v, far);
    args.out = view(out, far);
    args.lse = TensorView::contiguous(far ? lse.far : lse.compact, DType::fp32, {far ? 2 : 1, kHeads, kSeq});
    return args;
  };
  auto backward_args = [&](bool far) {
    const ForwardArgs forward_of = forward_args(far);
    BackwardArgs args;
    static_cast<AttentionArgs&>(args) = forward_of;
    args.deterministic = true;
    args.out = forward_of.out;
    args.lse = forward_of.lse;
    args.dout = view(dout, far);
    args.dq = view(dq, far);
    args.dk = view(dk, far);
    args.dv = view(dv, far);
    return args;
  };
  RunInfo forward_info, backward_info;
  for (const bool far : {true, false}) {
    Status status = forward(forward_args(far), &forward_info);
    ASSERT_TRUE(status.ok()) << status.to_string();
    status = backward(backward_args(far), &backward_info);
    ASSERT_TRUE(status.ok()) << status.to_string();
  }
  EXPECT_FALSE(forward_info.fell_back) << forward_info.fallback_reason;
  const std::string kernel = forward_info.kernel;
  const std::string backward_kernel = backward_info.kernel;

  const std::string names[] = {"out", "dq", "dk", "dv"};
  const Operand* outputs[] = {&out, &dq, &dk, &dv};
  for (int i = 0; i < 4; ++i) {
    const std::vector<std::uint16_t> far_values = outputs[i]->far_entry();
    // Every row keeps at least its diagonal key, so every output is finite: a NaN left is unwritten poison
    // (in both layouts alike, which the comparison below would not see).
    EXPECT_TRUE(std::none_of(far_values.begin(), far_values.end(),
                             [&](std::uint16_t x) {
                               return std::isnan(dtype == DType::bf16 ? numeric::bf16_to_float(x)
                                                                      : numeric::fp16_to_float(x));
                             }))
        << names[i] << " has elements no call wrote (" << kernel << ", " << backward_kernel << ")";
    EXPECT_EQ(far_values, outputs[i]->compact_entry())
        << names[i] << " of the batch entry 2^31 elements away (" << kernel << ", " << backward_kernel
        << ") differs from the compact problem's";
  }
  std::vector<float> lse_far(2 * Lse::kRows), lse_compact(Lse::kRows);
  ASSERT_TRUE(device_memory::copy_to_host(kDevice, lse_far.data(), lse.far, lse_far.size() * 4).ok());
  ASSERT_TRUE(
      device_memory::copy_to_host(kDevice, lse_compact.data(), lse.compact, lse_compact.size() * 4).ok());
  EXPECT_EQ(std::memcmp(lse_far.data() + Lse::kRows, lse_compact.data(), Lse::kRows * 4), 0)
      << "lse, " << kernel;
}

/// `values` copied to a new device buffer.
template <class T>
std::unique_ptr<DeviceBuffer> on_device(const std::vector<T>& values) {
  auto buffer =
      std::make_unique<DeviceBuffer>(static_cast<std::int64_t>((values.size() * sizeof(T) + 1) / 2));
  EXPECT_TRUE(buffer->ok());
  if (buffer->ok()) {
    EXPECT_TRUE(
        device_memory::copy_to_device(kDevice, buffer->at(0), values.data(), values.size() * sizeof(T)).ok());
  }
  return buffer;
}

/// forward_kvcache reading (and appending to) entry 1 of a cache whose entries are 2^31+ elements apart —
/// a dense cache's entry chosen by cache_batch_idx, or with `paged` a pool's page 1 (one page of kSeq rows
/// per sequence) chosen by the page table — against the same cache as a compact batch of one (paged: a
/// pool of one page): the output and the cache after the append must agree bitwise (fixed split count, so
/// the same partials are merged). The far page's stride does not fit 31 bits, so the paged case also runs
/// the decode kernel's 64-bit page addressing, which caches of realistic strides never take.
void expect_far_cache_entry_matches_compact(bool paged) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible";
  const Capabilities caps = capabilities(kDevice, CudaPath::automatic, Op::forward);
  if (caps.dtypes.empty()) GTEST_SKIP() << "no CUDA kernels here";
  const DType dtype = caps.dtypes.front();
  const int head_dim = caps.head_dims.front();
  const std::int64_t token = std::int64_t{kHeads} * head_dim;
  const std::int64_t entry = kSeq * token;  // one cache entry: (S_max = kSeq, Hk, D)
  const std::int64_t far_stride = (std::int64_t{1} << 31) + 4 * token;
  Operand k_cache(far_stride, entry), v_cache(far_stride, entry);
  if (!k_cache.ok() || !v_cache.ok()) GTEST_SKIP() << "the device cannot hold 2 caches of 4 GiB";
  k_cache.upload(random_values(entry, dtype, 640), random_values(entry, dtype, 641));
  v_cache.upload(random_values(entry, dtype, 642), random_values(entry, dtype, 643));

  constexpr int kNew = 3;       // new tokens, appended at rows [kCached, kCached + kNew)
  constexpr int kCached = 150;  // tokens already in the cache
  const std::int64_t new_elements = kNew * token;
  const auto q = on_device(random_values(new_elements, dtype, 644));
  const auto k_new = on_device(random_values(new_elements, dtype, 645));
  const auto v_new = on_device(random_values(new_elements, dtype, 646));
  const auto cache_seqlens = on_device(std::vector<std::int32_t>{kCached});
  const auto cache_batch_idx = on_device(std::vector<std::int32_t>{1});
  const auto far_page_table = on_device(std::vector<std::int32_t>{1});
  const auto compact_page_table = on_device(std::vector<std::int32_t>{0});
  const auto out_far = on_device(std::vector<std::uint16_t>(new_elements, kNaN16));
  const auto out_compact = on_device(std::vector<std::uint16_t>(new_elements, kNaN16));

  auto args = [&](bool far) {
    KVCacheArgs call;
    call.device = kDevice;
    call.causal = true;
    call.num_splits = 3;
    call.q = TensorView::contiguous(q->at(0), dtype, {1, kNew, kHeads, head_dim});
    call.k_new = TensorView::contiguous(k_new->at(0), dtype, {1, kNew, kHeads, head_dim});
    call.v_new = TensorView::contiguous(v_new->at(0), dtype, {1, kNew, kHeads, head_dim});
    call.k = far ? k_cache.far_view(dtype, head_dim) : k_cache.compact_view(dtype, head_dim);
    call.v = far ? v_cache.far_view(dtype, head_dim) : v_cache.compact_view(dtype, head_dim);
    call.cache_seqlens = TensorView::contiguous(cache_seqlens->at(0), DType::i32, {1});
    if (paged) {
      call.page_table =
          TensorView::contiguous((far ? far_page_table : compact_page_table)->at(0), DType::i32, {1, 1});
    } else if (far) {
      call.cache_batch_idx = TensorView::contiguous(cache_batch_idx->at(0), DType::i32, {1});
    }
    call.out =
        TensorView::contiguous((far ? out_far : out_compact)->at(0), dtype, {1, kNew, kHeads, head_dim});
    return call;
  };
  RunInfo info;
  for (const bool far : {true, false}) {
    const Status status = forward_kvcache(args(far), &info);
    ASSERT_TRUE(status.ok()) << status.to_string();
  }
  std::vector<std::uint16_t> far_out(static_cast<std::size_t>(new_elements));
  std::vector<std::uint16_t> compact_out(far_out.size());
  ASSERT_TRUE(device_memory::copy_to_host(kDevice, far_out.data(), out_far->at(0), far_out.size() * 2).ok());
  ASSERT_TRUE(
      device_memory::copy_to_host(kDevice, compact_out.data(), out_compact->at(0), compact_out.size() * 2)
          .ok());
  EXPECT_EQ(std::count(far_out.begin(), far_out.end(), kNaN16), 0) << "out has elements no call wrote";
  EXPECT_EQ(far_out, compact_out) << "out of the cache entry 2^31 elements away (" << info.kernel << ")";
  EXPECT_EQ(k_cache.far_entry(), k_cache.compact_entry())
      << "k cache after the append (" << info.kernel << ")";
  EXPECT_EQ(v_cache.far_entry(), v_cache.compact_entry())
      << "v cache after the append (" << info.kernel << ")";
}

TEST(CudaOffsets64Bit, PortablePathAddressesAFarBatchEntry) {
  expect_far_entry_matches_compact(CudaPath::portable);
}

TEST(CudaOffsets64Bit, HopperPathAddressesAFarBatchEntry) {
  expect_far_entry_matches_compact(CudaPath::hopper);
}

TEST(CudaOffsets64Bit, DecodingAddressesAFarCacheEntry) { expect_far_cache_entry_matches_compact(false); }

TEST(CudaOffsets64Bit, DecodingAddressesAFarCachePage) { expect_far_cache_entry_matches_compact(true); }

}  // namespace
}  // namespace flashattn::testing
