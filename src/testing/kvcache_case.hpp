// flashattn testing — one forward_kvcache call for the test suites of every backend: the problem, random
// inputs rounded to the dtype, a cache (dense, mapped through cache_batch_idx, or paged with its pages
// shuffled through one pool) whose rows past each sequence's length stay NaN poison, a page table whose
// unused entries point far out of range (so reading either shows), rotary tables, ALiBi slopes, poisoned
// outputs, and the cache's bytes before the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "flashattn/kvcache.hpp"
#include "testing/device_tensors.hpp"
#include "testing/host_tensor.hpp"

namespace flashattn::testing {

struct KVCacheProblem {
  DType dtype = DType::bf16;
  int heads = 4;
  int heads_kv = 2;
  int head_dim = 16;
  int seqlen_q = 3;          ///< New tokens per sequence.
  std::vector<int> lengths;  ///< cache_seqlens: tokens already cached per sequence.
  int page_size = 0;         ///< 0: dense cache.
  int capacity = 64;         ///< Tokens per sequence the cache can hold (S_max, or max_pages * page_size).
  bool append = true;
  bool causal = false;
  int window_left = -1;
  int window_right = -1;
  float softcap = 0.0f;
  bool alibi = false;
  int rotary_dim = 0;  ///< 0: no rotary embedding.
  bool rotary_interleaved = false;
  bool reversed_batch_idx = false;  ///< Dense: sequence b in cache entry B - b (one spare entry).
  int num_splits = 0;

  int batch() const { return static_cast<int>(lengths.size()); }
  int max_pages() const { return page_size ? (capacity + page_size - 1) / page_size : 0; }
  /// Keys sequence b attends to: the cached ones and the appended ones.
  int keys(int b) const { return lengths[b] + (append ? seqlen_q : 0); }
  bool windowed() const { return causal || window_left >= 0 || window_right >= 0; }
};

/// One line naming every option of the problem, for test messages.
std::string describe(const KVCacheProblem& pb);

/// The host side of one call: its inputs, the cache before the call, and (once downloaded) its outputs.
/// q, k_new, v_new, out and the dense cache are padded (non-contiguous) tensors.
struct KVCacheTensors {
  KVCacheProblem pb;
  HostTensor q, k_cache, v_cache, k_new, v_new, cos, sin, out, lse, seqlens, page_table, batch_idx, slopes;
  std::vector<std::byte> k_before, v_before;

  /// Element offset of token `row` of sequence b, kv head 0, in a cache tensor.
  std::int64_t cache_offset(const HostTensor& cache, int b, std::int64_t row) const;
};

KVCacheTensors make_kvcache_tensors(const KVCacheProblem& pb, unsigned seed);

/// The call's arguments through `device` (on the CPU, views of the host tensors; on a GPU, device copies
/// whose cache, out and lse come back on download), with the problem's options.
KVCacheArgs kvcache_args(KVCacheTensors& t, DeviceTensors& device);

}  // namespace flashattn::testing
