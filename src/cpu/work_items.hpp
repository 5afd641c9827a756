// flashattn — how the CPU kernels split a call into independent work items for OpenMP, and how many
// threads run them. Each item owns one lane tile of one (sequence, head) and is the only writer of its
// outputs, so results do not depend on the schedule or the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "cpu/simd.hpp"
#include "cpu/tile_gemm.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

/// `requested` threads, or OpenMP's default for 0.
inline int resolve_threads(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

/// Items (b, head, group of `item_tiles` consecutive lane tiles) over the lane tiles of each (b, head);
/// item t covers rows [t * item_rows(), (t + 1) * item_rows()) of the sequence. Consecutive items share
/// (b, head), so a thread tends to reuse the same keys and values from cache.
struct WorkGrid {
  int batch;
  int heads;
  int item_tiles;
  std::int64_t items_per_head;

  /// `longest` = the longest sequence along the tiled dimension.
  WorkGrid(int batch_, int heads_, std::int64_t longest, int item_tiles_ = 1)
      : batch(batch_),
        heads(heads_),
        item_tiles(item_tiles_),
        items_per_head((longest + std::int64_t{kTileLanes} * item_tiles_ - 1) /
                       (std::int64_t{kTileLanes} * item_tiles_)) {}

  std::int64_t size() const { return std::int64_t{batch} * heads * items_per_head; }
  std::int64_t item_rows() const { return std::int64_t{kTileLanes} * item_tiles; }

  struct Item {
    int b;
    int head;
    std::int64_t first_row;
  };
  Item operator[](std::int64_t index) const {
    const std::int64_t item = index % items_per_head;
    const std::int64_t bh = index / items_per_head;
    return {static_cast<int>(bh / heads), static_cast<int>(bh % heads), item * item_rows()};
  }
};

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
