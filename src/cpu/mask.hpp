// flashattn — the attention window of one sequence, in int64 (i + offset - window_left overflows int32
// when the window is unbounded: kUnboundedWindow is 2^40).
//
// With dist = i + offset - j (offset = Sk - Sq), key j of query row i is kept iff
//   -window_right <= dist <= window_left.
// The kernels use this two ways: whole-tile ranges (which key tiles a query tile must visit at all, and
// the converse) and per-row lane spans of a lane tile (which lanes of a boundary row stay unmasked).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/params.hpp"
#include "cpu/simd.hpp"
#include "cpu/tile_gemm.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

/// Half-open index range [begin, end); empty when begin >= end.
struct IndexRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  bool empty() const { return begin >= end; }
};

/// Lanes [first, last) of a lane tile row that are kept.
struct LaneSpan {
  int first = 0;
  int last = 0;
  /// True when every lane of the tile is kept (no per-element masking needed).
  bool full() const { return first == 0 && last == kTileLanes; }
  /// Mask of the kept lanes of vector `v` of the row.
  VecI keep_mask(int v) const {
    const VecI lane = kLaneIota + v * kVecLanes;
    return (lane >= first) & (lane < last);
  }
};

class SequenceWindow {
 public:
  SequenceWindow(std::int64_t seqlen_q, std::int64_t seqlen_k, std::int64_t window_left,
                 std::int64_t window_right)
      : seqlen_q_(seqlen_q),
        seqlen_k_(seqlen_k),
        offset_(seqlen_k - seqlen_q),
        left_(window_left),
        right_(window_right) {}

  std::int64_t offset() const { return offset_; }

  /// Keys kept by at least one of the query rows [rows.begin, rows.end), clipped to [0, Sk).
  IndexRange keys_of(IndexRange rows) const {
    if (rows.empty()) return {};
    return {std::max<std::int64_t>(0, rows.begin + offset_ - left_),
            std::min<std::int64_t>(seqlen_k_, rows.end - 1 + offset_ + right_ + 1)};
  }

  /// Query rows that keep at least one of the keys [keys.begin, keys.end), clipped to [0, Sq).
  IndexRange queries_of(IndexRange keys) const {
    if (keys.empty()) return {};
    return {std::max<std::int64_t>(0, keys.begin - offset_ - right_),
            std::min<std::int64_t>(seqlen_q_, keys.end - 1 - offset_ + left_ + 1)};
  }

  /// Kept lanes of key row j in a tile whose lanes are the queries first_query + lane, of which the first
  /// `lane_count` exist: dist = (first_query + offset - j) + lane.
  LaneSpan query_lanes(std::int64_t j, std::int64_t first_query, int lane_count) const {
    const std::int64_t base = first_query + offset_ - j;
    return clip(-right_ - base, left_ - base, lane_count);
  }

  /// Kept lanes of query row i in a tile whose lanes are the keys first_key + lane, of which the first
  /// `lane_count` exist: dist = (i + offset - first_key) - lane.
  LaneSpan key_lanes(std::int64_t i, std::int64_t first_key, int lane_count) const {
    const std::int64_t base = i + offset_ - first_key;
    return clip(base - left_, base + right_, lane_count);
  }

 private:
  /// Lanes [lo, hi] (inclusive, possibly far outside the tile) intersected with [0, lane_count).
  static LaneSpan clip(std::int64_t lo, std::int64_t hi, int lane_count) {
    const std::int64_t first = std::clamp<std::int64_t>(lo, 0, lane_count);
    const std::int64_t last = std::clamp<std::int64_t>(hi + 1, first, lane_count);
    return {static_cast<int>(first), static_cast<int>(last)};
  }

  std::int64_t seqlen_q_;
  std::int64_t seqlen_k_;
  std::int64_t offset_;
  std::int64_t left_;
  std::int64_t right_;
};

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
