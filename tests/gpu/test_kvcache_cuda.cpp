// forward_kvcache on CUDA (src/cuda/decode/): the append writes exactly the new rows (bitwise; rotated keys
// bitwise equal to the kernel's documented fp32 evaluation), the attention over a dense or paged cache
// passes the calibrated rule against the fp64 oracle over the gathered cache for page sizes 1, 16, 256 and
// dense, edge lengths, GQA / MQA, Sq = 1 and 4, every mask option and rotary layout; every split count gives
// the same answer within rounding; a sequence's output is bitwise independent of its batch neighbours;
// reruns are bitwise identical; a caller's workspace works and a short one is refused. Every test skips
// when no CUDA device is visible (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "common/kvcache_checks.hpp"
#include "flashattn/flashattn.hpp"
#include "reference/reference.hpp"
#include "reference/rounding.hpp"
#include "testing/case_tensors.hpp"
#include "testing/device_memory.hpp"
#include "testing/device_tensors.hpp"
#include "testing/host_tensor.hpp"
#include "testing/kvcache_case.hpp"
#include "testing/sweeps.hpp"
#include "testing/tolerance.hpp"

namespace flashattn::testing {
namespace {

constexpr Device kGpu{DeviceKind::cuda, 0};

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is visible"

/// The shared problem with the decode defaults: 8 query heads over 2 kv heads, D = 128, one new token.
struct DecodeProblem : KVCacheProblem {
  DecodeProblem() {
    heads = 8;
    head_dim = 128;
    seqlen_q = 1;
  }
};

using DecodeCall = KVCacheTensors;

double round_to(DType dtype, double x) { return reference::round_to(precision_of(dtype), x); }

/// Runs the call on the GPU and downloads its outputs (cache included).
Status run(DecodeCall& c, RunInfo* info = nullptr) {
  DeviceTensors device(kGpu);
  const KVCacheArgs args = kvcache_args(c, device);
  const Status status = forward_kvcache(args, info);
  device.download_outputs();
  return status;
}

/// The kernel's rotation of element d (append_kvcache.cuh): fp32, each product and sum rounded on its own
/// (volatile keeps the host compiler from contracting them into an FMA), then rounded to the dtype.
double kernel_rotation(const DecodeCall& c, const HostTensor& t, std::int64_t row_offset, int d,
                       std::int64_t position) {
  const KVCacheProblem& pb = c.pb;
  if (d >= pb.rotary_dim) return t.get(row_offset + d);
  const int half = pb.rotary_dim / 2;
  const int pair = pb.rotary_interleaved ? d / 2 : d % half;
  const bool first = pb.rotary_interleaved ? d % 2 == 0 : d < half;
  const int a = pb.rotary_interleaved ? 2 * pair : pair;
  const int b = pb.rotary_interleaved ? 2 * pair + 1 : pair + half;
  const auto cos = static_cast<float>(c.cos.get(c.cos.offset({position, pair})));
  const auto sin = static_cast<float>(c.sin.get(c.sin.offset({position, pair})));
  const auto x_a = static_cast<float>(t.get(row_offset + a));
  const auto x_b = static_cast<float>(t.get(row_offset + b));
  volatile float p1 = first ? x_a * cos : x_a * sin;
  volatile float p2 = first ? x_b * sin : x_b * cos;
  const float value = first ? p1 - p2 : p1 + p2;
  return round_to(pb.dtype, value);
}

/// Every cache byte but the appended rows as before the call; appended v rows equal v_new and k rows equal
/// k_new or its rotation as the kernel defines it, bitwise.
void expect_cache_after_append(const DecodeCall& c, const std::string& what) {
  testing::expect_cache_after_append(
      c, what, [&](std::int64_t k_src, int d, std::int64_t row, double actual) {
        const double expected =
            c.pb.rotary_dim ? kernel_rotation(c, c.k_new, k_src, d, row) : c.k_new.get(k_src + d);
        if (actual == expected) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << actual << " vs " << expected;
      });
}

/// The oracle's problem: each sequence's queries (rotated as the kernel rotates them) and its keys read
/// from the cache after the call, as a varlen batch in the canonical layout.
reference::Problem gathered_problem(const DecodeCall& c) {
  const KVCacheProblem& pb = c.pb;
  reference::Problem p;
  p.heads = pb.heads;
  p.heads_kv = pb.heads_kv;
  p.head_dim = p.head_dim_v = pb.head_dim;
  p.causal = pb.causal;
  p.window_left = pb.window_left;
  p.window_right = pb.window_right;
  p.softcap = pb.softcap;
  for (int b = 0; b < pb.batch(); ++b) {
    p.seqlens_q.push_back(pb.seqlen_q);
    p.seqlens_k.push_back(pb.keys(b));
    for (int t = 0; t < pb.seqlen_q; ++t) {
      const std::int64_t position = pb.lengths[b] + (pb.windowed() ? t : 0);
      for (int h = 0; h < pb.heads; ++h) {
        const std::int64_t src = c.q.offset({b, t, h, 0});
        for (int d = 0; d < pb.head_dim; ++d)
          p.q.push_back(pb.rotary_dim ? kernel_rotation(c, c.q, src, d, position) : c.q.get(src + d));
      }
    }
    for (int row = 0; row < pb.keys(b); ++row) {
      for (int h = 0; h < pb.heads_kv; ++h) {
        const std::int64_t k_src = c.cache_offset(c.k_cache, b, row) + h * c.k_cache.stride(2);
        const std::int64_t v_src = c.cache_offset(c.v_cache, b, row) + h * c.v_cache.stride(2);
        for (int d = 0; d < pb.head_dim; ++d) {
          p.k.push_back(c.k_cache.get(k_src + d));
          p.v.push_back(c.v_cache.get(v_src + d));
        }
      }
    }
    for (int h = 0; h < pb.heads && pb.alibi; ++h)
      p.alibi_slopes.push_back(c.slopes.get(c.slopes.offset({b, h})));
  }
  return p;
}

/// out and lse of the call (already run) pass the calibrated rule against the oracle.
void expect_matches_oracle(const DecodeCall& c, const std::string& what) {
  const KVCacheProblem& pb = c.pb;
  const reference::Problem p = gathered_problem(c);
  const reference::ForwardResult ref = reference::forward(p);
  const reference::ForwardResult base = reference::base_forward(p, precision_of(pb.dtype));
  std::vector<double> out, lse;
  for (int b = 0; b < pb.batch(); ++b) {
    for (int t = 0; t < pb.seqlen_q; ++t) {
      for (int h = 0; h < pb.heads; ++h) {
        for (int d = 0; d < pb.head_dim; ++d) out.push_back(c.out.get(c.out.offset({b, t, h, d})));
        lse.push_back(c.lse.get(c.lse.offset({b, h, t})));
      }
    }
  }
  for (const Comparison& cmp :
       {compare("out", out, ref.out, base.out, ref.out_magnitude, kBaseErrorFactor),
        compare("lse", lse, ref.lse, base.lse, ref.lse_magnitude, kBaseErrorFactor)}) {
    EXPECT_TRUE(cmp.passed) << what << ": " << cmp.tensor << " max_err " << cmp.max_err
                            << " <= " << cmp.max_bound << ", mean_err " << cmp.mean_err
                            << " <= " << cmp.mean_bound << ", " << cmp.kind_mismatches
                            << " NaN/inf/-inf mismatches";
  }
  EXPECT_TRUE(c.out.padding_intact()) << what << ": out written outside its view";
}

/// Runs the call and checks the cache, out and lse; returns what ran.
RunInfo run_and_check(DecodeCall& c) {
  const std::string what = describe(c.pb);
  RunInfo info;
  const Status status = run(c, &info);
  EXPECT_TRUE(status.ok()) << what << ": " << status.message();
  if (!status.ok()) return info;
  EXPECT_EQ(info.backend, Backend::cuda) << what;
  EXPECT_EQ(info.kernel,
            "kvcache_sm80_" + std::string(to_string(c.pb.dtype)) + "_hd" + std::to_string(c.pb.head_dim));
  if (c.pb.num_splits > 0) EXPECT_EQ(info.num_splits, c.pb.num_splits) << what;
  expect_cache_after_append(c, what);
  expect_matches_oracle(c, what);
  return info;
}

/// A problem of each built (dtype, head dim), `base` otherwise.
std::vector<DecodeProblem> for_each_kernel(const DecodeProblem& base) {
  std::vector<DecodeProblem> problems;
  for (const auto& [dtype, head_dim] : built_decode_kernels(kGpu)) {
    DecodeProblem pb = base;
    pb.dtype = dtype;
    pb.head_dim = head_dim;
    problems.push_back(pb);
  }
  return problems;
}

unsigned next_seed() {
  static unsigned seed = 91'000;
  return ++seed;
}

TEST(KVCacheCuda, KernelsAreBuiltAndSelected) {
  SKIP_WITHOUT_GPU();
  ASSERT_FALSE(built_decode_kernels(kGpu).empty()) << "no CUDA decode kernel is built";
}

// Page sizes 1, 7 (dividing neither a 64-key tile nor the capacity), 16, 256 and dense; lengths 0, 1, page
// boundary -1 / +1 and full; with and without append, causal or not, Sq = 1 and 4.
TEST(KVCacheCuda, PageSizesAndEdgeLengthsMatchOracle) {
  SKIP_WITHOUT_GPU();
  for (int page_size : {0, 1, 7, 16, 256}) {
    for (bool append : {true, false}) {
      for (int seqlen_q : {1, 4}) {
        DecodeProblem base;
        base.page_size = page_size;
        base.capacity = page_size == 256 ? 768 : 160;
        base.append = append;
        base.seqlen_q = seqlen_q;
        base.causal = seqlen_q > 1;
        const int edge = page_size > 1 ? page_size : 64;  // a key tile is 64 keys
        base.lengths = {0, 1, edge - 1, edge + 1, base.capacity - seqlen_q};
        for (DecodeProblem pb : for_each_kernel(base)) {
          DecodeCall c = make_kvcache_tensors(pb, next_seed());
          run_and_check(c);
        }
      }
    }
  }
}

// GQA 32 / 8 and MQA 32 / 1 (32 packed rows: two row blocks), decode and 4 causal new tokens, mixed
// lengths in one batch.
TEST(KVCacheCuda, GqaAndMqaMatchOracle) {
  SKIP_WITHOUT_GPU();
  for (int heads_kv : {8, 1}) {
    for (int seqlen_q : {1, 4}) {
      DecodeProblem base;
      base.heads = 32;
      base.heads_kv = heads_kv;
      base.seqlen_q = seqlen_q;
      base.causal = seqlen_q > 1;
      base.page_size = 16;
      base.capacity = 1040;
      base.lengths = {1000, 3, 0, 517};
      for (DecodeProblem pb : for_each_kernel(base)) {
        DecodeCall c = make_kvcache_tensors(pb, next_seed());
        run_and_check(c);
      }
    }
  }
}

// Sliding window with softcap, ALiBi, a mapped dense cache (cache_batch_idx), non-causal Sq = 4.
TEST(KVCacheCuda, MaskOptionsMatchOracle) {
  SKIP_WITHOUT_GPU();
  std::vector<DecodeProblem> bases;
  DecodeProblem window;
  window.page_size = 16;
  window.capacity = 320;
  window.seqlen_q = 4;
  window.lengths = {300, 7, 129};
  window.window_left = 40;
  window.window_right = 0;
  window.softcap = 5.0f;
  bases.push_back(window);
  DecodeProblem alibi = window;
  alibi.window_left = -1;
  alibi.causal = true;
  alibi.softcap = 0.0f;
  alibi.alibi = true;
  bases.push_back(alibi);
  DecodeProblem mapped;
  mapped.capacity = 200;
  mapped.seqlen_q = 4;
  mapped.lengths = {150, 3, 61};
  mapped.reversed_batch_idx = true;
  bases.push_back(mapped);
  for (const DecodeProblem& base : bases) {
    for (DecodeProblem pb : for_each_kernel(base)) {
      DecodeCall c = make_kvcache_tensors(pb, next_seed());
      run_and_check(c);
    }
  }
}

// Rotary embedding, both layouts, full and partial rotary dims, queries at L (non-causal) or L + i.
TEST(KVCacheCuda, RotaryEmbeddingMatchesOracle) {
  SKIP_WITHOUT_GPU();
  for (bool interleaved : {false, true}) {
    for (bool partial : {false, true}) {
      for (bool causal : {false, true}) {
        DecodeProblem base;
        base.page_size = 16;
        base.capacity = 96;
        base.seqlen_q = 3;
        base.lengths = {0, 17, 80};
        base.rotary_interleaved = interleaved;
        base.causal = causal;
        for (DecodeProblem pb : for_each_kernel(base)) {
          pb.rotary_dim = partial ? pb.head_dim / 2 : pb.head_dim;
          DecodeCall c = make_kvcache_tensors(pb, next_seed());
          run_and_check(c);
        }
      }
    }
  }
}

/// Whether the decode kernel this GPU runs has its cluster code (the launcher's rule: the binary's PTX
/// version is 90 or more), read from the architectures the library was built for: an entry of 90 or more
/// that this GPU can run: an arch-specific entry ("90a") on that compute capability only, a plain one on it
/// and every newer GPU (by its PTX). (The sm90 forward's presence is no proxy: a build of the decode family
/// alone has none, and its kernel still clusters.)
bool has_cluster_path() {
  const auto props = cuda_device_properties(0);
  if (!props) return false;
  const int device_arch = props->sm_major * 10 + props->sm_minor;
  std::stringstream archs(build_info().cuda_archs);
  for (std::string entry; std::getline(archs, entry, ';');) {
    std::size_t digits = 0;
    const int arch = std::stoi(entry, &digits);
    const std::string suffix = entry.substr(digits);
    // "90a" / "90f": that compute capability only; "90-real": SASS alone, that major only; "90" or
    // "90-virtual": PTX too, JIT-compiled on every newer GPU.
    const bool runs_here = std::isalpha(static_cast<unsigned char>(suffix.empty() ? ' ' : suffix[0]))
                               ? arch == device_arch
                               : arch <= device_arch && (suffix != "-real" || arch / 10 == props->sm_major);
    if (arch >= 90 && runs_here) return true;
  }
  return false;
}

// Every split count passes the oracle rule (the same answer within rounding), empty splits included
// (32 splits of a 65-key sequence), and the automatic choice records a count >= 1. On sm90 up to 16 splits
// combine inside their thread-block cluster when all the call's clusters fit the GPU at once (2 and 3
// always do here: 32 clusters of at most 3 CTAs), more through the combine kernel: both paths run here.
// 33 and 56 splits take the combine kernel past its first batch (32 splits, 16 at D 256).
TEST(KVCacheCuda, SplitCountsAgreeWithinRounding) {
  SKIP_WITHOUT_GPU();
  const bool clusters = has_cluster_path();
  for (int splits : {1, 2, 3, 8, 16, 32, 33, 56, 0}) {
    DecodeProblem base;
    base.heads = 32;
    base.heads_kv = 8;
    base.page_size = 16;
    base.capacity = 2048;
    base.lengths = {2000, 65, 0, 1};
    base.num_splits = splits;
    for (DecodeProblem pb : for_each_kernel(base)) {
      DecodeCall c = make_kvcache_tensors(pb, next_seed());
      const RunInfo info = run_and_check(c);
      EXPECT_GE(info.num_splits, 1);
      if (clusters && (info.num_splits == 2 || info.num_splits == 3)) {
        EXPECT_EQ(info.cluster_size, info.num_splits);
      } else if (!clusters || info.num_splits == 1 || info.num_splits > 16) {
        EXPECT_EQ(info.cluster_size, 0) << "splits " << info.num_splits;
      } else {
        EXPECT_TRUE(info.cluster_size == 0 || info.cluster_size == info.num_splits) << info.cluster_size;
      }
    }
  }
}

/// Copies sequence `from_b` of `from` (queries, new tokens, cached rows) into sequence `to_b` of `to`.
void copy_sequence(const DecodeCall& from, int from_b, DecodeCall& to, int to_b) {
  const KVCacheProblem& pb = from.pb;
  for (int t = 0; t < pb.seqlen_q; ++t) {
    for (int d = 0; d < pb.head_dim; ++d) {
      for (int h = 0; h < pb.heads; ++h)
        to.q.set(to.q.offset({to_b, t, h, d}), from.q.get(from.q.offset({from_b, t, h, d})));
      for (int h = 0; h < pb.heads_kv; ++h) {
        to.k_new.set(to.k_new.offset({to_b, t, h, d}), from.k_new.get(from.k_new.offset({from_b, t, h, d})));
        to.v_new.set(to.v_new.offset({to_b, t, h, d}), from.v_new.get(from.v_new.offset({from_b, t, h, d})));
      }
    }
  }
  for (int row = 0; row < pb.lengths[from_b]; ++row) {
    for (int h = 0; h < pb.heads_kv; ++h) {
      for (int d = 0; d < pb.head_dim; ++d) {
        const std::int64_t src =
            from.cache_offset(from.k_cache, from_b, row) + h * from.k_cache.stride(2) + d;
        const std::int64_t dst = to.cache_offset(to.k_cache, to_b, row) + h * to.k_cache.stride(2) + d;
        to.k_cache.set(dst, from.k_cache.get(src));
        to.v_cache.set(dst, from.v_cache.get(src));
      }
    }
  }
}

void expect_sequence_bitwise_equal(const DecodeCall& a, int a_b, const DecodeCall& b, int b_b,
                                   const std::string& what) {
  const KVCacheProblem& pb = a.pb;
  for (int t = 0; t < pb.seqlen_q; ++t) {
    for (int h = 0; h < pb.heads; ++h) {
      for (int d = 0; d < pb.head_dim; ++d) {
        ASSERT_EQ(a.out.get(a.out.offset({a_b, t, h, d})), b.out.get(b.out.offset({b_b, t, h, d})))
            << what << ": out " << t << "," << h << "," << d;
      }
      ASSERT_EQ(a.lse.get(a.lse.offset({a_b, h, t})), b.lse.get(b.lse.offset({b_b, h, t})))
          << what << ": lse";
    }
  }
}

// The middle sequence's output is bitwise the same whatever its neighbours' lengths (automatic splits, same
// batch size and capacity), and alone in a batch of one with the same explicit split count.
TEST(KVCacheCuda, ASequenceResultDoesNotDependOnItsBatchNeighbours) {
  SKIP_WITHOUT_GPU();
  DecodeProblem trio;
  trio.heads = 32;
  trio.heads_kv = 8;
  trio.seqlen_q = 2;
  trio.causal = true;
  trio.page_size = 16;
  trio.capacity = 4096;
  trio.lengths = {4000, 777, 5};
  for (DecodeProblem pb : for_each_kernel(trio)) {
    DecodeCall first = make_kvcache_tensors(pb, next_seed());
    DecodeProblem other = pb;
    other.lengths = {1, 777, 4090};
    DecodeCall second = make_kvcache_tensors(other, next_seed());
    copy_sequence(first, 1, second, 1);
    ASSERT_TRUE(run(first).ok());
    ASSERT_TRUE(run(second).ok());
    expect_sequence_bitwise_equal(first, 1, second, 1, describe(pb) + " vs neighbours " + describe(other));

    DecodeProblem fixed = pb;
    fixed.num_splits = 7;
    DecodeCall three = make_kvcache_tensors(fixed, next_seed());
    DecodeProblem alone = fixed;
    alone.lengths = {777};
    DecodeCall one = make_kvcache_tensors(alone, next_seed());
    copy_sequence(three, 1, one, 0);
    ASSERT_TRUE(run(three).ok());
    ASSERT_TRUE(run(one).ok());
    expect_sequence_bitwise_equal(three, 1, one, 0, describe(fixed) + " vs alone");
  }
}

// On sm90 a call's splits combine inside their clusters when all its clusters fit the GPU at once, through
// the combine kernel otherwise; the two paths merge in the same order (split_weights.cuh), so a sequence's
// result is bitwise the same alone (8 clusters of 8 CTAs) and among 7 others (64 clusters, 512 CTAs: more
// than an H100's or H200's 264 CTA slots, so the combine kernel).
TEST(KVCacheCuda, TheClusterAndTheCombineKernelAgreeBitwise) {
  SKIP_WITHOUT_GPU();
  if (!has_cluster_path()) GTEST_SKIP() << "the cluster path needs sm90 and a build for it";
  DecodeProblem many;
  many.heads = 32;
  many.heads_kv = 8;
  many.capacity = 1024;
  many.num_splits = 8;
  for (int b = 0; b < 8; ++b) many.lengths.push_back(1 + (b * 397) % 1000);
  many.lengths[5] = 1000;
  for (DecodeProblem pb : for_each_kernel(many)) {
    DecodeCall crowd = make_kvcache_tensors(pb, next_seed());
    DecodeProblem alone_pb = pb;
    alone_pb.lengths = {1000};
    DecodeCall alone = make_kvcache_tensors(alone_pb, next_seed());
    copy_sequence(crowd, 5, alone, 0);
    RunInfo crowd_info, alone_info;
    ASSERT_TRUE(run(crowd, &crowd_info).ok());
    ASSERT_TRUE(run(alone, &alone_info).ok());
    EXPECT_EQ(crowd_info.cluster_size, 0) << describe(pb);
    EXPECT_EQ(alone_info.cluster_size, 8) << describe(alone_pb);
    expect_sequence_bitwise_equal(crowd, 5, alone, 0, describe(pb) + " vs alone");
  }
}

// Reruns on the same inputs (the append rewrites the same rows with the same values) are bitwise
// identical, automatic splits and ALiBi included.
TEST(KVCacheCuda, RerunsAreBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  DecodeProblem base;
  base.heads = 16;
  base.heads_kv = 4;
  base.seqlen_q = 3;
  base.causal = true;
  base.alibi = true;
  base.page_size = 1;
  base.capacity = 1500;
  base.lengths = {1400, 0, 64};
  for (DecodeProblem pb : for_each_kernel(base)) {
    DecodeCall c = make_kvcache_tensors(pb, next_seed());
    DeviceTensors device(kGpu);
    const KVCacheArgs args = kvcache_args(c, device);
    std::vector<std::byte> first;
    for (int rerun = 0; rerun < 10; ++rerun) {
      c.out.poison();
      c.lse.poison();
      device.upload_outputs();
      ASSERT_TRUE(forward_kvcache(args).ok());
      device.download_outputs();
      std::vector<std::byte> bytes(c.out.bytes(), c.out.bytes() + c.out.size_bytes());
      bytes.insert(bytes.end(), c.lse.bytes(), c.lse.bytes() + c.lse.size_bytes());
      if (rerun == 0) {
        first = bytes;
      } else {
        ASSERT_TRUE(bytes == first) << describe(pb) << ": rerun " << rerun << " differs";
      }
    }
  }
}

// A caller's workspace of kvcache_workspace_size() bytes gives the result of the allocating call bitwise;
// one byte less is refused before anything runs.
TEST(KVCacheCuda, CallerWorkspace) {
  SKIP_WITHOUT_GPU();
  DecodeProblem base;
  base.heads = 32;
  base.heads_kv = 8;
  base.page_size = 16;
  base.capacity = 4096;
  base.lengths = {4000};
  base.rotary_dim = 64;
  base.num_splits = 8;
  for (DecodeProblem pb : for_each_kernel(base)) {
    DecodeCall allocating = make_kvcache_tensors(pb, 777);
    ASSERT_TRUE(run(allocating).ok());
    DecodeCall given = make_kvcache_tensors(pb, 777);
    DeviceTensors device(kGpu);
    KVCacheArgs args = kvcache_args(given, device);
    const std::size_t bytes = kvcache_workspace_size(args);
    ASSERT_GT(bytes, 0u) << "8 splits and rotary embedding need a workspace";
    void* workspace = nullptr;
    ASSERT_TRUE(device_memory::allocate(kGpu, bytes, &workspace).ok());
    args.workspace = workspace;
    args.workspace_bytes = bytes - 1;
    const Status refused = forward_kvcache(args);
    EXPECT_EQ(refused.code(), StatusCode::invalid_argument) << refused.message();
    EXPECT_EQ(refused.message().rfind("workspace:", 0), 0u) << refused.message();
    args.workspace_bytes = bytes;
    EXPECT_TRUE(forward_kvcache(args).ok());
    device.download_outputs();
    device_memory::release(kGpu, workspace);
    expect_sequence_bitwise_equal(allocating, 0, given, 0, describe(pb) + " with a caller workspace");
  }
}

}  // namespace
}  // namespace flashattn::testing
