// flashattn — how the CPU backward splits its main pass into items, and the fp32 partial sums that the
// split costs (backward_cpu.cpp).
//
// The main pass walks (b, kv head, key tile): dK and dV of a tile accumulate over the query heads of its
// group and all query rows, and each key tile's dQ contribution dS · K is added to fp32 rows of its query
// head, so S, P, dP and dS are computed once per (query block, key tile) — 5 tile products instead of
// the 7 of a separate dQ pass. An item is (b, kv head, head split, key chunk):
//   - head split s of head_splits takes a contiguous range of the group's query heads; with more than one
//     split, each item adds its dK, dV into fp32 partial rows of its split, summed by a postprocess;
//   - key chunk c of chunks takes the key tiles c, c + chunks, ... (round-robin, balancing causal and
//     windowed masks); with more than one chunk, each item adds its dQ into fp32 partial rows of its
//     chunk, summed by a postprocess. With one chunk, the item owns all of dQ for its heads and writes it.
// Splits and chunks only exist to give enough items to the threads when B * Hk is small: head splits
// first (their partials, Sk x (D + Dv) per split, do not scale with the group), then key chunks.
//
// Memory, chosen trade-off: per thread O(S) (packed fp32 rows of one query head, the item's dK/dV tiles,
// see MainTiles), plus these partials only while B * Hk < kMinItems, bounded by about 2 * kMinItems
// copies of one head's dQ or dK and dV, whatever B and H are. Nothing grows with Sq * Sk.
// Determinism: every partial row has one writer adding in a fixed order, postprocesses sum the partials in
// ascending order, and the split and chunk counts depend on the shape only — never on the thread count or
// the schedule — so the gradients are bitwise identical across reruns and thread counts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "core/params.hpp"
#include "cpu/tile_gemm.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

/// Items the main pass aims to offer: enough for up to this many threads with dynamic balancing. A
/// constant, not the thread count, so that the summation order (and the bits) never depend on it.
inline constexpr std::int64_t kMinItems = 16;

struct BackwardPlan {
  int group = 1;        ///< Query heads per kv head.
  int head_splits = 1;  ///< Items sharing the heads of one (b, kv head); > 1: dK, dV partials.
  int chunks = 1;       ///< Items sharing the key tiles of one (b, kv head, split); > 1: dQ partials.
  int dq_ld = 0;        ///< head_dim rounded up to whole lane tiles: the row length of dQ accumulators.

  BackwardPlan(const BackwardParams& p, std::int64_t key_tiles) {
    group = p.heads / p.heads_kv;
    dq_ld = (p.head_dim + kTileLanes - 1) / kTileLanes * kTileLanes;
    const std::int64_t kv_heads_total = std::max<std::int64_t>(1, std::int64_t{p.batch} * p.heads_kv);
    head_splits = static_cast<int>(std::clamp<std::int64_t>(ceil_div(kMinItems, kv_heads_total), 1, group));
    chunks = static_cast<int>(std::clamp<std::int64_t>(ceil_div(kMinItems, kv_heads_total * head_splits), 1,
                                                       std::max<std::int64_t>(1, key_tiles)));
  }

  /// Query heads [first_head(s), first_head(s + 1)) of the group (offsets within it) belong to split s.
  int first_head(int split) const { return split * group / head_splits; }

 private:
  static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
};

/// fp32 partial sums, `parts` copies of per-(head, token) rows of `cols` values; rows of one (part, b,
/// head) are consecutive. Tokens are q_start(b) + i (varlen) or b * max_seqlen + i (dense), of q or of k.
/// Empty (and never addressed) when parts == 1.
class PartialRows {
 public:
  PartialRows(int parts, int heads, const std::int32_t* cu_seqlens, int batch, int max_seqlen, int cols)
      : heads_(heads),
        tokens_(cu_seqlens ? std::int64_t{cu_seqlens[batch]} : std::int64_t{batch} * max_seqlen),
        cu_seqlens_(cu_seqlens),
        max_seqlen_(max_seqlen),
        cols_(cols) {
    if (parts > 1) {
      const std::size_t count = std::size_t(parts) * heads * std::size_t(tokens_) * cols;
      data_.reset(
          static_cast<float*>(std::aligned_alloc(64, (std::max<std::size_t>(count, 1) * 4 + 63) / 64 * 64)));
      ok_ = data_ != nullptr;
    }
  }

  /// False when the allocation failed.
  bool ok() const { return ok_; }
  int cols() const { return cols_; }
  float* row(int part, int b, int head, std::int64_t i) const {
    const std::int64_t token =
        (cu_seqlens_ ? std::int64_t{cu_seqlens_[b]} : std::int64_t{b} * max_seqlen_) + i;
    return data_.get() + ((std::int64_t{part} * heads_ + head) * tokens_ + token) * cols_;
  }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  int heads_;
  std::int64_t tokens_;
  const std::int32_t* cu_seqlens_;
  std::int64_t max_seqlen_;
  int cols_;
  bool ok_ = true;
  std::unique_ptr<float, Free> data_;
};

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
