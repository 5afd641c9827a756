// Throughput of the portable CUDA forward kernel on the FlashAttention papers' grid (B·S = 16384 tokens,
// hidden 2048, bf16, causal and full), for a quick look from scripts/gpu. Disabled by default: run with
// --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'. Times back-to-back launches with the host
// clock around a device synchronisation (each point runs for milliseconds, so launch gaps are noise);
// bench/peers.py is the measurement of record.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "core/numeric.hpp"
#include "flashattn/flashattn.hpp"
#include "testing/device_memory.hpp"

namespace flashattn::testing {
namespace {

constexpr Device kGpu{DeviceKind::cuda, 0};

/// A device buffer of `count` random bf16 values in [-1, 1).
struct DeviceBuffer {
  void* data = nullptr;
  explicit DeviceBuffer(std::int64_t count, std::uint64_t seed) {
    std::vector<std::uint16_t> host(static_cast<std::size_t>(count));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto& value : host) value = numeric::float_to_bf16(uniform(rng));
    EXPECT_TRUE(device_memory::allocate(kGpu, host.size() * 2, &data).ok());
    EXPECT_TRUE(device_memory::copy_to_device(kGpu, data, host.data(), host.size() * 2).ok());
  }
  ~DeviceBuffer() { device_memory::release(kGpu, data); }
};

TEST(CudaForwardSm80Throughput, DISABLED_PapersGrid) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible";
  // Every point of the grid has B·S·H·D = 16384 * 2048 elements per operand: one set of buffers serves all.
  constexpr std::int64_t kElements = std::int64_t{16384} * 2048;
  DeviceBuffer q(kElements, 1), k(kElements, 2), v(kElements, 3), out(kElements, 4);
  std::printf("%-5s %-7s %-6s %-4s %-4s %-10s %-8s %s\n", "D", "mask", "S", "B", "H", "ms", "TFLOP/s",
              "kernel");
  for (int head_dim : {64, 128, 256}) {
    for (bool causal : {false, true}) {
      for (int seqlen : {512, 1024, 2048, 4096, 8192, 16384}) {
        const int batch = 16384 / seqlen, heads = 2048 / head_dim;
        const std::int64_t elements = kElements;
        ForwardArgs args;
        args.q = TensorView::contiguous(q.data, DType::bf16, {batch, seqlen, heads, head_dim});
        args.k = TensorView::contiguous(k.data, DType::bf16, {batch, seqlen, heads, head_dim});
        args.v = TensorView::contiguous(v.data, DType::bf16, {batch, seqlen, heads, head_dim});
        args.out = TensorView::contiguous(out.data, DType::bf16, {batch, seqlen, heads, head_dim});
        args.causal = causal;
        args.device = kGpu;
        args.cuda_path = CudaPath::portable;
        if (!is_supported(args).ok()) continue;
        RunInfo info;
        ASSERT_TRUE(forward(args, &info).ok());  // warm-up
        ASSERT_TRUE(device_memory::synchronize(kGpu).ok());
        const int launches = std::max(3, static_cast<int>(2e11 / (4.0 * elements * seqlen)));
        std::vector<double> samples;
        for (int sample = 0; sample < 5; ++sample) {
          const auto start = std::chrono::steady_clock::now();
          for (int i = 0; i < launches; ++i) ASSERT_TRUE(forward(args).ok());
          ASSERT_TRUE(device_memory::synchronize(kGpu).ok());
          samples.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                            launches);
        }
        std::sort(samples.begin(), samples.end());
        const double seconds = samples[samples.size() / 2];
        const double flops = 4.0 * batch * heads * double(seqlen) * seqlen * head_dim * (causal ? 0.5 : 1.0);
        std::printf("%-5d %-7s %-6d %-4d %-4d %-10.4f %-8.1f %s\n", head_dim, causal ? "causal" : "full",
                    seqlen, batch, heads, seconds * 1e3, flops / seconds * 1e-12, info.kernel.c_str());
      }
    }
  }
}

}  // namespace
}  // namespace flashattn::testing
