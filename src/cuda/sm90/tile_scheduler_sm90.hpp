// flashattn — which (query tile, head, batch) tiles each CTA of the Hopper forward computes, and in which
// order.
//
// Persistent: one CTA per SM (fewer when there are fewer tiles) walks the tiles blockIdx.x,
// blockIdx.x + gridDim.x, ... of one global order, so a CTA's next Q and K/V loads overlap its epilogue
// and no wave quantisation is paid at the end of the grid. The order:
//  - Heads (batch * heads, flattened) are cut into sections whose K and V fit comfortably in L2
//    (kL2Budget); a section's tiles all run before the next section's, so each K/V tile is read from
//    device memory about once however many query tiles read it.
//  - Within a section query tiles go longest first: the last query tile (the most keys under a causal or
//    bottom-right window mask) of every head of the section, then the one before, ... With a static
//    round-robin over work sorted by decreasing length, the CTAs' totals differ by at most about one
//    tile, so the grid's tail stays short. Unmasked problems have tiles of equal length; the order then
//    only serves L2.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/host_device.hpp"
#include "cuda/common/fwd_kernel_params.hpp"

namespace flashattn::cuda::sm90 {

class PersistentTileScheduler {
 public:
  /// Bytes of K and V that one section of heads may keep in L2 (H100/H200: 50 MB, shared with Q and O
  /// traffic and the other sections' tails).
  static constexpr std::int64_t kL2Budget = 24ll << 20;

  struct Tile {
    int m_block;  ///< Query tile: rows [m_block * BLOCK_M, (m_block + 1) * BLOCK_M) of the sequence.
    int head;
    int batch;
  };

  /// The order's constants, computed on the host.
  struct Order {
    std::int64_t tiles = 0;   ///< num_m_blocks * batch * heads
    int m_blocks = 0;         ///< Query tiles per head.
    int heads = 0;            ///< Query heads per batch entry.
    int batch_heads = 0;      ///< batch * heads
    int section_heads = 1;    ///< Heads (of batch_heads) per L2 section.
  };

  /// Host: the order of `params` for a kernel whose K and V tiles hold `kv_bytes_per_key` bytes per key.
  static Order order(const FwdKernelParams& params, std::int64_t kv_bytes_per_key) {
    Order order;
    order.m_blocks = params.num_m_blocks;
    order.heads = params.problem.heads;
    order.batch_heads = params.problem.batch * params.problem.heads;
    order.tiles = std::int64_t{order.m_blocks} * order.batch_heads;
    // Query heads that share a kv head read the same K/V: a section counts kv heads' bytes once.
    const std::int64_t group = std::max(1, params.problem.heads / std::max(1, params.problem.heads_kv));
    const std::int64_t head_bytes = std::max<std::int64_t>(1, params.problem.max_seqlen_k) * kv_bytes_per_key;
    const std::int64_t section = std::max<std::int64_t>(1, kL2Budget / head_bytes) * group;
    order.section_heads = static_cast<int>(std::min<std::int64_t>(section, std::max(1, order.batch_heads)));
    return order;
  }

  /// Host: CTAs to launch.
  static int grid_size(const Order& order, int multiprocessors) {
    return static_cast<int>(std::min<std::int64_t>(order.tiles, multiprocessors));
  }

  /// The tile at position `index` (< order.tiles) of the global order.
  FLASHATTN_HOST_DEVICE static Tile tile(const Order& order, std::int64_t index) {
    const std::int64_t section_tiles = std::int64_t{order.section_heads} * order.m_blocks;
    const int section = static_cast<int>(index / section_tiles);
    const int within = static_cast<int>(index - section * section_tiles);
    const int first_head = section * order.section_heads;
    const int heads_here = std::min(order.section_heads, order.batch_heads - first_head);
    const int rank = within / heads_here;  // 0 = the last, longest query tile
    const int batch_head = first_head + within % heads_here;
    return {order.m_blocks - 1 - rank, batch_head % order.heads, batch_head / order.heads};
  }
};

}  // namespace flashattn::cuda::sm90
