// flashattn testing — KVCacheTensors (kvcache_case.hpp).
#include "testing/kvcache_case.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "testing/case_tensors.hpp"

namespace flashattn::testing {
namespace {

double round_to(DType dtype, double x) { return reference::round_to(precision_of(dtype), x); }

/// Standard normal values rounded to the tensor's dtype, in logical (row-major) order.
void fill_random(HostTensor& t, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    std::int64_t offset = 0, rest = i;
    for (int d = t.rank() - 1; d >= 0; --d) {
      offset += rest % t.shape(d) * t.stride(d);
      rest /= t.shape(d);
    }
    t.set(offset, round_to(t.dtype(), normal(rng)));
  }
}

}  // namespace

std::string describe(const KVCacheProblem& pb) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "literal" + std::string&&.
  std::string s = to_string(pb.dtype);
  auto add = [&s](const char* label, int value) {
    s += label;
    s += std::to_string(value);
  };
  add(" hd", pb.head_dim);
  add(" H", pb.heads);
  add("/", pb.heads_kv);
  add(" Sq", pb.seqlen_q);
  if (pb.page_size) {
    add(" page ", pb.page_size);
  } else {
    s += " dense";
  }
  s += " lengths";
  for (int length : pb.lengths) add(" ", length);
  if (pb.append) s += " +append";
  if (pb.causal) s += " causal";
  if (pb.window_left >= 0 || pb.window_right >= 0) {
    add(" window ", pb.window_left);
    add(",", pb.window_right);
  }
  if (pb.softcap > 0) s += " softcap";
  if (pb.alibi) s += " alibi";
  if (pb.rotary_dim) {
    add(" rotary ", pb.rotary_dim);
    if (pb.rotary_interleaved) s += "i";
  }
  if (pb.reversed_batch_idx) s += " cache_batch_idx";
  add(" splits ", pb.num_splits);
  return s;
}

std::int64_t KVCacheTensors::cache_offset(const HostTensor& cache, int b, std::int64_t row) const {
  if (pb.page_size) {
    const auto page = static_cast<std::int64_t>(page_table.get(page_table.offset({b, row / pb.page_size})));
    return page * cache.stride(0) + row % pb.page_size * cache.stride(1);
  }
  const std::int64_t entry = pb.reversed_batch_idx ? static_cast<std::int64_t>(batch_idx.get(b)) : b;
  return entry * cache.stride(0) + row * cache.stride(1);
}

KVCacheTensors make_kvcache_tensors(const KVCacheProblem& pb, unsigned seed) {
  std::mt19937 rng(seed);
  KVCacheTensors c;
  c.pb = pb;
  const int B = pb.batch(), D = pb.head_dim;
  c.q = HostTensor::padded(pb.dtype, {B, pb.seqlen_q, pb.heads, D});
  fill_random(c.q, rng);
  c.seqlens = HostTensor::contiguous(DType::i32, {B});
  for (int b = 0; b < B; ++b) c.seqlens.set(b, pb.lengths[b]);
  if (pb.page_size) {
    // Pages of all sequences shuffled through one pool with two spare pages.
    const int pages = B * pb.max_pages() + 2;
    std::vector<int> pool(pages);
    std::iota(pool.begin(), pool.end(), 0);
    std::shuffle(pool.begin(), pool.end(), rng);
    c.page_table = HostTensor::contiguous(DType::i32, {B, pb.max_pages()});
    for (int b = 0; b < B; ++b) {
      const int used = (pb.keys(b) + pb.page_size - 1) / pb.page_size;
      for (int page = 0; page < pb.max_pages(); ++page)
        c.page_table.set(c.page_table.offset({b, page}),
                         page < used ? pool[b * pb.max_pages() + page] : 1 << 30);
    }
    c.k_cache = HostTensor::contiguous(pb.dtype, {pages, pb.page_size, pb.heads_kv, D});
    c.v_cache = HostTensor::contiguous(pb.dtype, {pages, pb.page_size, pb.heads_kv, D});
  } else {
    const int entries = pb.reversed_batch_idx ? B + 1 : B;
    if (pb.reversed_batch_idx) {
      c.batch_idx = HostTensor::contiguous(DType::i32, {B});
      for (int b = 0; b < B; ++b) c.batch_idx.set(b, B - b);
    }
    c.k_cache = HostTensor::padded(pb.dtype, {entries, pb.capacity, pb.heads_kv, D});
    c.v_cache = HostTensor::padded(pb.dtype, {entries, pb.capacity, pb.heads_kv, D});
  }
  // Only the cached rows hold values; every other row stays NaN poison, which must never be read.
  std::normal_distribution<double> normal;
  for (int b = 0; b < B; ++b) {
    for (int row = 0; row < pb.lengths[b]; ++row) {
      for (HostTensor* cache : {&c.k_cache, &c.v_cache}) {
        const std::int64_t base = c.cache_offset(*cache, b, row);
        for (int h = 0; h < pb.heads_kv; ++h) {
          for (int d = 0; d < D; ++d)
            cache->set(base + h * cache->stride(2) + d, round_to(pb.dtype, normal(rng)));
        }
      }
    }
  }
  if (pb.append) {
    c.k_new = HostTensor::padded(pb.dtype, {B, pb.seqlen_q, pb.heads_kv, D});
    c.v_new = HostTensor::padded(pb.dtype, {B, pb.seqlen_q, pb.heads_kv, D});
    fill_random(c.k_new, rng);
    fill_random(c.v_new, rng);
  }
  if (pb.rotary_dim) {
    int positions = 1;
    for (int b = 0; b < B; ++b) positions = std::max(positions, pb.lengths[b] + pb.seqlen_q);
    c.cos = HostTensor::contiguous(pb.dtype, {positions, pb.rotary_dim / 2});
    c.sin = HostTensor::contiguous(pb.dtype, {positions, pb.rotary_dim / 2});
    for (int p = 0; p < positions; ++p) {
      for (int i = 0; i < pb.rotary_dim / 2; ++i) {
        const double angle = p * std::pow(10000.0, -2.0 * i / pb.rotary_dim);
        c.cos.set(c.cos.offset({p, i}), round_to(pb.dtype, std::cos(angle)));
        c.sin.set(c.sin.offset({p, i}), round_to(pb.dtype, std::sin(angle)));
      }
    }
  }
  if (pb.alibi) {
    c.slopes = HostTensor::contiguous(DType::fp32, {B, pb.heads});
    for (int b = 0; b < B; ++b) {
      for (int h = 0; h < pb.heads; ++h) c.slopes.set(c.slopes.offset({b, h}), std::ldexp(1.0, -(h % 8) - 1));
    }
  }
  c.out = HostTensor::padded(pb.dtype, {B, pb.seqlen_q, pb.heads, D});
  c.lse = HostTensor::contiguous(DType::fp32, {B, pb.heads, pb.seqlen_q});
  c.k_before.assign(c.k_cache.bytes(), c.k_cache.bytes() + c.k_cache.size_bytes());
  c.v_before.assign(c.v_cache.bytes(), c.v_cache.bytes() + c.v_cache.size_bytes());
  return c;
}

KVCacheArgs kvcache_args(KVCacheTensors& t, DeviceTensors& device) {
  KVCacheArgs a;
  a.q = device.input(t.q);
  a.k = device.output(t.k_cache);
  a.v = device.output(t.v_cache);
  a.cache_seqlens = device.input(t.seqlens);
  a.page_table = device.input(t.page_table);
  a.cache_batch_idx = device.input(t.batch_idx);
  a.k_new = device.input(t.k_new);
  a.v_new = device.input(t.v_new);
  a.rotary_cos = device.input(t.cos);
  a.rotary_sin = device.input(t.sin);
  a.rotary_interleaved = t.pb.rotary_interleaved;
  a.alibi_slopes = device.input(t.slopes);
  a.out = device.output(t.out);
  a.lse = device.output(t.lse);
  a.causal = t.pb.causal;
  a.window_left = t.pb.window_left;
  a.window_right = t.pb.window_right;
  a.softcap = t.pb.softcap;
  a.num_splits = t.pb.num_splits;
  a.device = device.device();
  return a;
}

}  // namespace flashattn::testing
