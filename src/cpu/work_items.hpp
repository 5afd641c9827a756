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

/// Items (b, head, tile) with `tiles` lane tiles per (b, head); tile t covers rows
/// [t * kTileLanes, (t + 1) * kTileLanes) of the sequence. Consecutive items share (b, head), so a thread
/// tends to reuse the same keys and values from cache.
struct WorkGrid {
  int batch;
  int heads;
  std::int64_t tiles;

  /// `longest` = the longest sequence along the tiled dimension.
  WorkGrid(int batch_, int heads_, std::int64_t longest)
      : batch(batch_), heads(heads_), tiles((longest + kTileLanes - 1) / kTileLanes) {}

  std::int64_t size() const { return std::int64_t{batch} * heads * tiles; }

  struct Item {
    int b;
    int head;
    std::int64_t first_row;
  };
  Item operator[](std::int64_t index) const {
    const std::int64_t tile = index % tiles;
    const std::int64_t bh = index / tiles;
    return {static_cast<int>(bh / heads), static_cast<int>(bh % heads), tile * kTileLanes};
  }
};

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
