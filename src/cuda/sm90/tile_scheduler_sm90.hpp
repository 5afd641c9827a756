// flashattn — which (query tile, head, batch) tiles each CTA of the Hopper forward computes, and in which
// order.
//
// Persistent: one CTA per SM (fewer when there are fewer tiles) walks its share of one global order, so
// a CTA's next Q and K/V loads overlap its epilogue and no wave is left half-empty at the end.
//  - Masks that make tiles unequal (causal, sliding window), with few heads: the order is longest first
//    across the whole grid — the last query tile (the most keys) of every head, then the one before, ... —
//    and round r of the CTAs takes positions [r * ctas, (r + 1) * ctas) in snake order (even rounds left to
//    right, odd rounds right to left). Over a list sorted by decreasing length that gives every CTA about the
//    same total (a CTA that drew a long tile in one round draws a short one in the next), so the grid's tail
//    stays short. Neighbouring query tiles of a head run together and walk the same keys in step, so
//    their K/V tiles are shared in L2.
//  - The same masks with many heads (core::fwd_tiles_paired): a round of the global order would hold one
//    tile of each of `ctas` heads and reach a head's next tile only after every other head's K/V went
//    through L2, so the CTAs take pairs instead — a head's longest tile with its shortest, its second
//    longest with its second shortest, ... (equal work per pair under a causal mask) — heads outermost: a
//    CTA computes pair k * ctas + cta in its rounds 2k and 2k + 1, and the pairs of a head run in one round.
//    An odd count's middle tile goes alone, after every pair.
//  - Unmasked problems have tiles of equal length: heads outermost, so the CTAs that run together read one
//    or a few heads' K and V and share them in L2.
// (A static order needs no counter in device memory, so launches stay independent of each other.)
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/heuristics.hpp"
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
    std::int64_t positions = 0;  ///< Positions of the order: the tiles, or two per pair when paired.
    int m_blocks = 0;            ///< Query tiles per head.
    int heads = 0;               ///< Query heads per batch entry.
    int batch_heads = 0;         ///< batch * heads
    bool longest_first = false;  ///< Query tiles outermost, last first (tiles of unequal length).
    bool paired = false;         ///< Pairs of one head's tiles, longest with shortest, heads outermost.
  };

  /// Host: the order of `params` on a device of `multiprocessors` SMs.
  static Order order(const FwdKernelParams& params, int multiprocessors) {
    Order order;
    order.m_blocks = params.num_m_blocks;
    order.heads = params.problem.heads;
    order.batch_heads = params.problem.batch * params.problem.heads;
    order.tiles = std::int64_t{order.m_blocks} * order.batch_heads;
    const bool unequal = params.problem.has_window();
    order.paired = core::fwd_tiles_paired(unequal, order.batch_heads, order.m_blocks, multiprocessors);
    order.longest_first = unequal && !order.paired;
    order.positions = order.paired ? 2 * pairs_per_head(order) * order.batch_heads : order.tiles;
    return order;
  }

  /// Host: CTAs to launch (one per work item at most: a tile, or a pair).
  static int grid_size(const Order& order, int multiprocessors) {
    const std::int64_t items = order.paired ? order.positions / 2 : order.tiles;
    return static_cast<int>(std::min<std::int64_t>(items, multiprocessors));
  }

  /// The position in the order of the tile CTA `cta` of `ctas` computes in its round `round` (may be
  /// >= order.positions in the last rounds: no tile). Increases with the round.
  FLASHATTN_HOST_DEVICE static std::int64_t position(const Order& order, int cta, int ctas,
                                                     std::int64_t round) {
    if (order.paired) return 2 * ((round >> 1) * ctas + cta) + (round & 1);
    return round * ctas + ((round & 1) == 0 ? cta : ctas - 1 - cta);
  }

  /// The tile at position `index` (< order.positions) of the order. m_block == order.m_blocks (past every
  /// sequence's last tile, so the CTA skips it) is the empty second half of an odd count's middle tile.
  FLASHATTN_HOST_DEVICE static Tile tile(const Order& order, std::int64_t index) {
    int rank;  // 0 = the last query tile of a head
    int batch_head;
    if (order.paired) {
      const int full = order.m_blocks / 2;  // pairs of two tiles per head
      const std::int64_t pair = index >> 1;
      const std::int64_t full_pairs = std::int64_t{full} * order.batch_heads;
      if (pair < full_pairs) {
        batch_head = static_cast<int>(pair / full);
        const int j = static_cast<int>(pair - std::int64_t{batch_head} * full);
        rank = (index & 1) == 0 ? j : order.m_blocks - 1 - j;
      } else {  // the middle tile of an odd count, alone, after every pair (light work last)
        batch_head = static_cast<int>(pair - full_pairs);
        rank = (index & 1) == 0 ? full : -1;
      }
    } else if (order.longest_first) {
      rank = static_cast<int>(index / order.batch_heads);
      batch_head = static_cast<int>(index - std::int64_t{rank} * order.batch_heads);
    } else {
      batch_head = static_cast<int>(index / order.m_blocks);
      rank = static_cast<int>(index - std::int64_t{batch_head} * order.m_blocks);
    }
    return {order.m_blocks - 1 - rank, batch_head % order.heads, batch_head / order.heads};
  }

 private:
  /// Pairs of a head, the middle tile of an odd count counted as one.
  FLASHATTN_HOST_DEVICE static int pairs_per_head(const Order& order) { return (order.m_blocks + 1) / 2; }
};

}  // namespace flashattn::cuda::sm90
