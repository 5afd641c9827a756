// forward_kvcache on the CPU (kvcache.hpp): the append writes exactly the new rows, the attention over a
// dense or paged cache is bitwise the forward over the same keys gathered into a varlen batch (whose
// correctness the oracle sweep establishes), rotary embedding matches an fp64 rotation, a sequence's result
// does not depend on its batch neighbours, and bad indices are refused before anything is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/kvcache_checks.hpp"
#include "flashattn/flashattn.hpp"
#include "reference/rounding.hpp"
#include "testing/case_tensors.hpp"
#include "testing/device_tensors.hpp"
#include "testing/host_tensor.hpp"
#include "testing/kvcache_case.hpp"

namespace flashattn {
namespace {

using testing::HostTensor;

using CacheProblem = testing::KVCacheProblem;

double round_to(DType dtype, double x) { return reference::round_to(testing::precision_of(dtype), x); }

/// A call's tensors and its arguments: views of the host tensors, which the CPU backend reads and writes
/// in place.
struct CacheCall : testing::KVCacheTensors {
  KVCacheArgs args;
};

CacheCall make_call(const CacheProblem& pb, unsigned seed) {
  CacheCall c{testing::make_kvcache_tensors(pb, seed), {}};
  testing::DeviceTensors host(Device{DeviceKind::cpu, 0});
  c.args = testing::kvcache_args(c, host);
  c.args.num_threads = 2;
  return c;
}

/// Unit roundoff of a dtype.
double unit_roundoff(DType dtype) {
  return dtype == DType::bf16   ? std::ldexp(1.0, -8)
         : dtype == DType::fp16 ? std::ldexp(1.0, -11)
                                : std::ldexp(1.0, -24);
}

/// fp64 rotation of element d of a row at `position` (the semantics of kvcache.hpp), rounded to the dtype;
/// `magnitude` receives the sum of the two terms' absolute values, the scale of any evaluation's rounding
/// errors.
double rotated(const CacheCall& c, const HostTensor& t, std::int64_t row_offset, int d, std::int64_t position,
               double* magnitude = nullptr) {
  const CacheProblem& pb = c.pb;
  if (magnitude) *magnitude = 0.0;
  if (d >= pb.rotary_dim) return t.get(row_offset + d);
  const int half = pb.rotary_dim / 2;
  const int pair = pb.rotary_interleaved ? d / 2 : d % half;
  const bool first = pb.rotary_interleaved ? d % 2 == 0 : d < half;
  const int a = pb.rotary_interleaved ? 2 * pair : pair;
  const int b = pb.rotary_interleaved ? 2 * pair + 1 : pair + half;
  const double cos = c.cos.get(c.cos.offset({position, pair}));
  const double sin = c.sin.get(c.sin.offset({position, pair}));
  const double x_a = t.get(row_offset + a);
  const double x_b = t.get(row_offset + b);
  if (magnitude)
    *magnitude =
        first ? std::abs(x_a * cos) + std::abs(x_b * sin) : std::abs(x_a * sin) + std::abs(x_b * cos);
  return round_to(t.dtype(), first ? x_a * cos - x_b * sin : x_a * sin + x_b * cos);
}

/// The same attention through forward(): each sequence's keys (the cache after the append) and its
/// queries gathered into a varlen batch. `q_rotated` / `k_rows` come from the caller.
struct Gathered {
  HostTensor q, k, v, out, lse;
  std::vector<std::int32_t> cu_q, cu_k;
};

Gathered gather(const CacheCall& c, bool use_rotated_q_from_fp64) {
  const CacheProblem& pb = c.pb;
  const int B = pb.batch();
  Gathered g;
  g.cu_q = {0};
  g.cu_k = {0};
  for (int b = 0; b < B; ++b) {
    g.cu_q.push_back(g.cu_q.back() + pb.seqlen_q);
    g.cu_k.push_back(g.cu_k.back() + pb.lengths[b] + (pb.append ? pb.seqlen_q : 0));
  }
  g.q = HostTensor::contiguous(pb.dtype, {g.cu_q.back(), pb.heads, pb.head_dim});
  g.k = HostTensor::contiguous(pb.dtype, {g.cu_k.back(), pb.heads_kv, pb.head_dim});
  g.v = HostTensor::contiguous(pb.dtype, {g.cu_k.back(), pb.heads_kv, pb.head_dim});
  g.out = HostTensor::contiguous(pb.dtype, {g.cu_q.back(), pb.heads, pb.head_dim});
  g.lse = HostTensor::contiguous(DType::fp32, {pb.heads, g.cu_q.back()});
  const bool windowed = pb.causal || pb.window_left >= 0 || pb.window_right >= 0;
  for (int b = 0; b < B; ++b) {
    for (int t = 0; t < pb.seqlen_q; ++t) {
      for (int h = 0; h < pb.heads; ++h) {
        const std::int64_t src = c.q.offset({b, t, h, 0});
        const std::int64_t dst = g.q.offset({g.cu_q[b] + t, h, 0});
        const std::int64_t position = pb.lengths[b] + (windowed ? t : 0);
        for (int d = 0; d < pb.head_dim; ++d) {
          g.q.set(dst + d, pb.rotary_dim && use_rotated_q_from_fp64 ? rotated(c, c.q, src, d, position)
                                                                    : c.q.get(src + d));
        }
      }
    }
    const int keys = g.cu_k[b + 1] - g.cu_k[b];
    for (int row = 0; row < keys; ++row) {
      for (int h = 0; h < pb.heads_kv; ++h) {
        const std::int64_t k_src = c.cache_offset(c.k_cache, b, row) + h * c.k_cache.stride(2);
        const std::int64_t v_src = c.cache_offset(c.v_cache, b, row) + h * c.v_cache.stride(2);
        const std::int64_t dst = g.k.offset({g.cu_k[b] + row, h, 0});
        for (int d = 0; d < pb.head_dim; ++d) {
          g.k.set(dst + d, c.k_cache.get(k_src + d));
          g.v.set(dst + d, c.v_cache.get(v_src + d));
        }
      }
    }
  }
  return g;
}

Status run_gathered(const CacheCall& c, Gathered& g) {
  ForwardArgs f;
  f.q = g.q.view();
  f.k = g.k.view();
  f.v = g.v.view();
  f.cu_seqlens_q =
      TensorView::contiguous(g.cu_q.data(), DType::i32, {static_cast<std::int64_t>(g.cu_q.size())});
  f.cu_seqlens_k =
      TensorView::contiguous(g.cu_k.data(), DType::i32, {static_cast<std::int64_t>(g.cu_k.size())});
  f.out = g.out.view();
  f.lse = g.lse.view();
  f.causal = c.args.causal;
  f.window_left = c.args.window_left;
  f.window_right = c.args.window_right;
  f.softcap = c.args.softcap;
  f.alibi_slopes = c.args.alibi_slopes;
  f.num_threads = 2;
  return forward(f);
}

/// out and lse of the kvcache call against the gathered forward's, bitwise (every element written).
void expect_same_as_gathered(const CacheCall& c, const Gathered& g, const std::string& what) {
  const CacheProblem& pb = c.pb;
  for (int b = 0; b < pb.batch(); ++b) {
    for (int t = 0; t < pb.seqlen_q; ++t) {
      for (int h = 0; h < pb.heads; ++h) {
        const std::int64_t mine = c.out.offset({b, t, h, 0});
        const std::int64_t theirs = g.out.offset({g.cu_q[b] + t, h, 0});
        for (int d = 0; d < pb.head_dim; ++d) {
          ASSERT_FALSE(c.out.is_poisoned(mine + d)) << what << ": out not written at " << b << "," << t;
          ASSERT_EQ(c.out.get(mine + d), g.out.get(theirs + d))
              << what << ": out " << b << "," << t << "," << h;
        }
        const double lse = c.lse.get(c.lse.offset({b, h, t}));
        const double expected = g.lse.get(g.lse.offset({h, g.cu_q[b] + t}));
        ASSERT_TRUE(lse == expected || (std::isinf(lse) && std::isinf(expected))) << what << ": lse";
      }
    }
  }
}

/// Every cache byte but the appended rows as before the call; the appended rows as k_new / v_new (or
/// their fp64 rotation for k, within one unit of the last place).
void expect_cache_after_append(const CacheCall& c, const std::string& what) {
  testing::expect_cache_after_append(
      c, what, [&](std::int64_t k_src, int d, std::int64_t row, double actual) {
        if (!c.pb.rotary_dim)
          return actual == c.k_new.get(k_src + d) ? ::testing::AssertionSuccess()
                                                  : ::testing::AssertionFailure() << actual;
        // One rounding to the dtype of a value computed in fp32: within (u + 2^-22) of the terms' scale of
        // the fp64 rotation, itself rounded once.
        double magnitude = 0.0;
        const double expected = rotated(c, c.k_new, k_src, d, row, &magnitude);
        const double tolerance = (2 * unit_roundoff(c.pb.dtype) + std::ldexp(1.0, -22)) * magnitude;
        if (std::abs(actual - expected) <= tolerance) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << actual << " vs the fp64 rotation " << expected;
      });
}

std::vector<CacheProblem> cache_problems() {
  std::vector<CacheProblem> problems;
  for (int page_size : {0, 1, 16, 256}) {
    for (bool append : {true, false}) {
      for (bool causal : {false, true}) {
        CacheProblem pb;
        pb.page_size = page_size;
        pb.capacity = page_size == 256 ? 512 : 64;
        const int edge = page_size ? page_size : 16;
        // Empty, one token, around a page boundary and full (leaving room for the append).
        pb.lengths = {0, 1, edge - 1, std::min(edge + 1, pb.capacity - pb.seqlen_q),
                      pb.capacity - pb.seqlen_q};
        pb.append = append;
        pb.causal = causal;
        problems.push_back(pb);
      }
    }
  }
  CacheProblem window;
  window.page_size = 16;
  window.lengths = {40, 7};
  window.window_left = 9;
  window.window_right = 0;
  window.softcap = 5.0f;
  problems.push_back(window);
  CacheProblem mapped;
  mapped.lengths = {20, 3, 61};
  mapped.reversed_batch_idx = true;
  mapped.causal = true;
  problems.push_back(mapped);
  CacheProblem decode;  // one new token, MQA, fp32
  decode.dtype = DType::fp32;
  decode.heads_kv = 1;
  decode.seqlen_q = 1;
  decode.page_size = 16;
  decode.lengths = {33, 16, 0};
  problems.push_back(decode);
  return problems;
}

TEST(KVCacheCpu, AppendThenAttentionEqualsForwardOverTheGatheredCache) {
  unsigned seed = 100;
  for (const CacheProblem& pb : cache_problems()) {
    CacheCall c = make_call(pb, ++seed);
    RunInfo info;
    const Status status = forward_kvcache(c.args, &info);
    ASSERT_TRUE(status.ok()) << describe(pb) << ": " << status.message();
    EXPECT_EQ(info.kernel, std::string("kvcache_cpu_") + to_string(pb.dtype));
    EXPECT_EQ(info.num_splits, 1);
    expect_cache_after_append(c, describe(pb));
    Gathered g = gather(c, false);
    ASSERT_TRUE(run_gathered(c, g).ok());
    expect_same_as_gathered(c, g, describe(pb));
  }
}

// The same property on random problems: page sizes that divide nothing (1, 2, 3, 5, 7) and the usual 16,
// capacities that are not a whole number of pages, random lengths up to the capacity, with and without an
// append, GQA / MQA, every mask kind, softcap, ALiBi, a permuted dense cache and each dtype.
TEST(KVCacheCpu, RandomProblemsEqualForwardOverTheGatheredCache) {
  std::mt19937 rng(39);
  auto pick = [&rng](std::initializer_list<int> values) {
    return *(values.begin() + std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng));
  };
  for (int i = 0; i < 60; ++i) {
    CacheProblem pb;
    pb.dtype = pick({0, 1, 2}) == 0 ? DType::fp32 : (pick({0, 1}) ? DType::bf16 : DType::fp16);
    pb.heads_kv = pick({1, 2, 3});
    pb.heads = pb.heads_kv * pick({1, 2, 4});
    pb.head_dim = pick({8, 16});
    pb.seqlen_q = pick({1, 2, 3, 5});
    pb.page_size = pick({0, 1, 2, 3, 5, 7, 16});
    pb.append = pick({0, 1}) != 0;
    pb.capacity = pb.seqlen_q + std::uniform_int_distribution<int>(0, 40)(rng);
    const int room = pb.capacity - (pb.append ? pb.seqlen_q : 0);
    pb.lengths.resize(pick({1, 2, 3, 4}));
    for (int& length : pb.lengths) length = std::uniform_int_distribution<int>(0, room)(rng);
    switch (pick({0, 1, 2})) {
      case 1:
        pb.causal = true;
        break;
      case 2:
        pb.window_left = pick({0, 2, 9});
        pb.window_right = pick({-1, 0, 1});
        break;
      default:
        break;
    }
    pb.softcap = pick({0, 0, 1}) ? 5.0f : 0.0f;
    pb.alibi = pick({0, 0, 1}) != 0;
    pb.reversed_batch_idx = pb.page_size == 0 && pick({0, 1}) != 0;
    CacheCall c = make_call(pb, 500 + i);
    const Status status = forward_kvcache(c.args);
    ASSERT_TRUE(status.ok()) << describe(pb) << ": " << status.message();
    expect_cache_after_append(c, describe(pb));
    Gathered g = gather(c, false);
    ASSERT_TRUE(run_gathered(c, g).ok()) << describe(pb);
    expect_same_as_gathered(c, g, describe(pb));
  }
}

TEST(KVCacheCpu, RotaryEmbeddingMatchesAnFp64Rotation) {
  unsigned seed = 200;
  for (bool interleaved : {false, true}) {
    for (int rotary_dim : {16, 8}) {
      for (bool causal : {false, true}) {
        CacheProblem pb;
        pb.dtype = DType::fp32;  // the rotation's fp32 rounding stays far below the tolerance below
        pb.page_size = 16;
        pb.lengths = {0, 17, 40};
        pb.rotary_dim = rotary_dim;
        pb.rotary_interleaved = interleaved;
        pb.causal = causal;
        CacheCall c = make_call(pb, ++seed);
        ASSERT_TRUE(forward_kvcache(c.args).ok()) << describe(pb);
        expect_cache_after_append(c, describe(pb));
        // The reference attends with queries rotated in fp64 over the cache as appended.
        Gathered g = gather(c, true);
        ASSERT_TRUE(run_gathered(c, g).ok());
        for (std::int64_t i = 0; i < c.out.numel(); ++i) {
          const std::int64_t d = i % pb.head_dim;
          const std::int64_t h = i / pb.head_dim % pb.heads;
          const std::int64_t t = i / pb.head_dim / pb.heads % pb.seqlen_q;
          const std::int64_t b = i / pb.head_dim / pb.heads / pb.seqlen_q;
          const double got = c.out.get(c.out.offset({b, t, h, d}));
          const double expected = g.out.get(g.out.offset({g.cu_q[b] + t, h, d}));
          ASSERT_NEAR(got, expected, 1e-5) << describe(pb) << " at " << b << "," << t << "," << h << "," << d;
        }
      }
    }
  }
  // bf16: the appended keys are within one bf16 unit of the fp64 rotation.
  CacheProblem pb;
  pb.page_size = 1;
  pb.lengths = {5, 30};
  pb.rotary_dim = 12;
  CacheCall c = make_call(pb, 300);
  ASSERT_TRUE(forward_kvcache(c.args).ok());
  expect_cache_after_append(c, describe(pb));
}

TEST(KVCacheCpu, ASequenceResultDoesNotDependOnItsBatchNeighbours) {
  CacheProblem trio;
  trio.page_size = 16;
  trio.lengths = {50, 21, 3};
  trio.causal = true;
  CacheCall all = make_call(trio, 400);
  CacheProblem alone = trio;
  alone.lengths = {21};
  CacheCall one = make_call(alone, 401);
  // The same middle sequence in both calls: copy its queries, new tokens and cached rows over.
  for (int t = 0; t < trio.seqlen_q; ++t) {
    for (int h = 0; h < trio.heads; ++h) {
      for (int d = 0; d < trio.head_dim; ++d)
        one.q.set(one.q.offset({0, t, h, d}), all.q.get(all.q.offset({1, t, h, d})));
    }
    for (int h = 0; h < trio.heads_kv; ++h) {
      for (int d = 0; d < trio.head_dim; ++d) {
        one.k_new.set(one.k_new.offset({0, t, h, d}), all.k_new.get(all.k_new.offset({1, t, h, d})));
        one.v_new.set(one.v_new.offset({0, t, h, d}), all.v_new.get(all.v_new.offset({1, t, h, d})));
      }
    }
  }
  for (int row = 0; row < 21; ++row) {
    for (int h = 0; h < trio.heads_kv; ++h) {
      for (int d = 0; d < trio.head_dim; ++d) {
        const std::int64_t from = all.cache_offset(all.k_cache, 1, row) + h * all.k_cache.stride(2) + d;
        const std::int64_t to = one.cache_offset(one.k_cache, 0, row) + h * one.k_cache.stride(2) + d;
        one.k_cache.set(to, all.k_cache.get(from));
        one.v_cache.set(to, all.v_cache.get(from));
      }
    }
  }
  ASSERT_TRUE(forward_kvcache(all.args).ok());
  ASSERT_TRUE(forward_kvcache(one.args).ok());
  for (int t = 0; t < trio.seqlen_q; ++t) {
    for (int h = 0; h < trio.heads; ++h) {
      for (int d = 0; d < trio.head_dim; ++d) {
        ASSERT_EQ(one.out.get(one.out.offset({0, t, h, d})), all.out.get(all.out.offset({1, t, h, d})));
      }
    }
  }
}

/// The call fails with invalid_argument naming `argument`, and neither the cache nor out changed.
void expect_refused(CacheCall& c, const std::string& argument) {
  std::vector<std::byte> out_before(c.out.bytes(), c.out.bytes() + c.out.size_bytes());
  const Status status = forward_kvcache(c.args);
  ASSERT_EQ(status.code(), StatusCode::invalid_argument) << argument << ": " << status.message();
  EXPECT_EQ(status.message().rfind(argument + ":", 0), 0u) << status.message();
  EXPECT_EQ(std::memcmp(c.k_cache.bytes(), c.k_before.data(), c.k_before.size()), 0) << argument;
  EXPECT_EQ(std::memcmp(c.v_cache.bytes(), c.v_before.data(), c.v_before.size()), 0) << argument;
  EXPECT_EQ(std::memcmp(c.out.bytes(), out_before.data(), out_before.size()), 0) << argument;
}

TEST(KVCacheCpu, BadIndicesAreRefusedBeforeAnythingIsWritten) {
  CacheProblem pb;
  pb.page_size = 16;
  pb.lengths = {10, 20};
  {
    CacheCall c = make_call(pb, 500);
    c.page_table.set(pb.max_pages() + 1, 999);  // a page sequence 1 uses
    expect_refused(c, "page_table");
  }
  {
    CacheCall c = make_call(pb, 501);
    c.page_table.set(0, -1);
    expect_refused(c, "page_table");
  }
  {
    CacheCall c = make_call(pb, 502);
    c.seqlens.set(1, pb.capacity - pb.seqlen_q + 1);  // the append would run past the capacity
    expect_refused(c, "cache_seqlens");
  }
  {
    CacheCall c = make_call(pb, 503);
    c.seqlens.set(0, -1);
    expect_refused(c, "cache_seqlens");
  }
  {
    CacheCall c = make_call(pb, 504);
    c.args.v_new = TensorView{};
    expect_refused(c, "v_new");
  }
  {
    CacheCall c = make_call(pb, 505);
    std::vector<std::int32_t> cu = {0, 3, 6};
    c.args.cu_seqlens_q = TensorView::contiguous(cu.data(), DType::i32, {3});
    expect_refused(c, "cu_seqlens_q");
  }
  {
    CacheProblem rotary = pb;
    rotary.rotary_dim = 8;
    CacheCall c = make_call(rotary, 506);
    c.args.rotary_cos.shape[0] = 22;  // sequence 1 needs positions up to 22
    c.args.rotary_sin.shape[0] = 22;
    expect_refused(c, "rotary_cos");
  }
  {
    CacheProblem dense = pb;
    dense.page_size = 0;
    dense.reversed_batch_idx = true;
    CacheCall c = make_call(dense, 507);
    c.batch_idx.set(0, 3);  // the cache has B + 1 = 3 entries
    expect_refused(c, "cache_batch_idx");
  }
}

}  // namespace
}  // namespace flashattn
