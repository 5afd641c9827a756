// flashattn — which (query tile, head, batch) tiles each CTA of the Hopper forward computes, and in which
// order.
//
// Persistent: one CTA per SM (fewer when there are fewer tiles) walks its share of one global order, so
// a CTA's next Q and K/V loads overlap its epilogue and no wave is left half-empty at the end.
//  - Masks that make tiles unequal (causal, sliding window): the order is longest first across the whole
//    grid — the last query tile (the most keys) of every head, then the one before, ... — and round r of
//    the CTAs takes positions [r * ctas, (r + 1) * ctas) in snake order (even rounds left to right, odd
//    rounds right to left). Over a list sorted by decreasing length that gives every CTA about the same
//    total (a CTA that drew a long tile in one round draws a short one in the next), so the grid's tail
//    stays short. Neighbouring query tiles of a head run together and walk the same keys in step, so
//    their K/V tiles are shared in L2.
//  - Unmasked problems have tiles of equal length: heads outermost, so the CTAs that run together read one
//    or a few heads' K and V and share them in L2.
// (A static order needs no counter in device memory, so launches stay independent of each other.)
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/host_device.hpp"
#include "cuda/common/fwd_kernel_params.hpp"

namespace flashattn::cuda::sm90 {

class PersistentTileScheduler {
 public:
  struct Tile {
    int m_block;  ///< Query tile: rows [m_block * BLOCK_M, (m_block + 1) * BLOCK_M) of the sequence.
    int head;
    int batch;
  };

  /// The order's constants, computed on the host.
  struct Order {
    std::int64_t tiles = 0;      ///< num_m_blocks * batch * heads
    int m_blocks = 0;            ///< Query tiles per head.
    int heads = 0;               ///< Query heads per batch entry.
    int batch_heads = 0;         ///< batch * heads
    bool longest_first = false;  ///< Query tiles outermost, last first (tiles of unequal length).
  };

  /// Host: the order of `params`.
  static Order order(const FwdKernelParams& params) {
    Order order;
    order.m_blocks = params.num_m_blocks;
    order.heads = params.problem.heads;
    order.batch_heads = params.problem.batch * params.problem.heads;
    order.tiles = std::int64_t{order.m_blocks} * order.batch_heads;
    order.longest_first = params.problem.has_window();
    return order;
  }

  /// Host: CTAs to launch.
  static int grid_size(const Order& order, int multiprocessors) {
    return static_cast<int>(std::min<std::int64_t>(order.tiles, multiprocessors));
  }

  /// The position in the order of the tile CTA `cta` of `ctas` computes in its round `round` (may be
  /// >= order.tiles in the last round: no tile).
  FLASHATTN_HOST_DEVICE static std::int64_t position(int cta, int ctas, std::int64_t round) {
    return round * ctas + ((round & 1) == 0 ? cta : ctas - 1 - cta);
  }

  /// The tile at position `index` (< order.tiles) of the order.
  FLASHATTN_HOST_DEVICE static Tile tile(const Order& order, std::int64_t index) {
    int rank;  // 0 = the last query tile of a head
    int batch_head;
    if (order.longest_first) {
      rank = static_cast<int>(index / order.batch_heads);
      batch_head = static_cast<int>(index - std::int64_t{rank} * order.batch_heads);
    } else {
      batch_head = static_cast<int>(index / order.m_blocks);
      rank = static_cast<int>(index - std::int64_t{batch_head} * order.m_blocks);
    }
    return {order.m_blocks - 1 - rank, batch_head % order.heads, batch_head / order.heads};
  }
};

}  // namespace flashattn::cuda::sm90
