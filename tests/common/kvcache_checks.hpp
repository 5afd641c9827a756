// Checks of a forward_kvcache call shared by the CPU and CUDA suites (tests/cpu/test_kvcache.cpp,
// tests/gpu/test_kvcache_cuda.cpp; the forward decode-step candidate d949fb5 uses built_decode_kernels too).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flashattn/flashattn.hpp"
#include "testing/kvcache_case.hpp"

namespace flashattn::testing {

/// After the call (outputs downloaded): every cache byte but the appended rows as before the call, the
/// appended v rows equal to v_new, and each appended k element accepted by
/// `check_k(k_src, d, row, actual)` -> ::testing::AssertionResult (k_src: the element offset of the row
/// in k_new, d: the dim, row: the cache row, actual: what the cache holds), which knows how the backend
/// rotates.
template <class CheckK>
void expect_cache_after_append(const KVCacheTensors& c, const std::string& what, CheckK&& check_k) {
  const KVCacheProblem& pb = c.pb;
  std::vector<bool> appended_k(c.k_cache.size_bytes(), false), appended_v(c.v_cache.size_bytes(), false);
  const std::size_t element = element_size(pb.dtype);
  for (int b = 0; b < pb.batch() && pb.append; ++b) {
    for (int t = 0; t < pb.seqlen_q; ++t) {
      const std::int64_t row = pb.lengths[b] + t;
      for (int h = 0; h < pb.heads_kv; ++h) {
        const std::int64_t k_dst = c.cache_offset(c.k_cache, b, row) + h * c.k_cache.stride(2);
        const std::int64_t v_dst = c.cache_offset(c.v_cache, b, row) + h * c.v_cache.stride(2);
        const std::int64_t k_src = c.k_new.offset({b, t, h, 0});
        const std::int64_t v_src = c.v_new.offset({b, t, h, 0});
        for (int d = 0; d < pb.head_dim; ++d) {
          for (std::size_t byte = 0; byte < element; ++byte) {
            appended_k[(k_dst + d) * element + byte] = true;
            appended_v[(v_dst + d) * element + byte] = true;
          }
          ASSERT_EQ(c.v_cache.get(v_dst + d), c.v_new.get(v_src + d)) << what << ": v row " << row;
          ASSERT_TRUE(check_k(k_src, d, row, c.k_cache.get(k_dst + d)))
              << what << ": k row " << row << " dim " << d;
        }
      }
    }
  }
  for (std::size_t i = 0; i < c.k_before.size(); ++i) {
    if (!appended_k[i]) ASSERT_EQ(c.k_cache.bytes()[i], c.k_before[i]) << what << ": k cache byte " << i;
  }
  for (std::size_t i = 0; i < c.v_before.size(); ++i) {
    if (!appended_v[i]) ASSERT_EQ(c.v_cache.bytes()[i], c.v_before[i]) << what << ": v cache byte " << i;
  }
}

/// The (dtype, head dim) pairs with a decode kernel built for `device`, asked through is_supported().
inline std::vector<std::pair<DType, int>> built_decode_kernels(Device device) {
  void* const fake = reinterpret_cast<void*>(std::uintptr_t{1} << 12);  // 16-byte aligned, never read
  std::vector<std::pair<DType, int>> built;
  for (DType dtype : {DType::fp16, DType::bf16}) {
    for (int head_dim : {64, 96, 128, 192, 256}) {
      KVCacheArgs args;
      args.q = TensorView::contiguous(fake, dtype, {1, 1, 1, head_dim});
      args.k = TensorView::contiguous(fake, dtype, {1, 16, 1, head_dim});
      args.v = TensorView::contiguous(fake, dtype, {1, 16, 1, head_dim});
      args.out = TensorView::contiguous(fake, dtype, {1, 1, 1, head_dim});
      args.cache_seqlens = TensorView::contiguous(fake, DType::i32, {1});
      args.device = device;
      if (is_supported(args).ok()) built.emplace_back(dtype, head_dim);
    }
  }
  return built;
}

}  // namespace flashattn::testing
