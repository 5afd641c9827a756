// flashattn — which (query tile, head, batch) tiles each CTA of the Hopper forward computes, and in which
// order.
//
// Persistent: one CTA per SM (fewer when there are fewer tiles) walks its share of one global order, so
// a CTA's next Q and K/V loads overlap its epilogue and no wave is left half-empty at the end.
//  - Masks that make tiles unequal (causal, sliding window), with few heads: the heads are cut into
//    sections whose K and V fit in L2 (core::fwd_kv_heads_per_section), and within a section the order is
//    longest first — the last query tile (the most keys) of every head of the section, then the one before,
//    ... Round r of the CTAs takes positions [r * ctas, (r + 1) * ctas) in snake order (even rounds left to
//    right, odd rounds right to left). Over a list sorted by decreasing length that gives every CTA about the
//    same total (a CTA that drew a long tile in one round draws a short one in the next), so the grid's tail
//    stays short. Each section is padded with empty positions to whole round pairs, so that every section
//    is such a list of its own, and in section s CTA c takes the positions of CTA (c + s * ctas / sections)
//    mod ctas: a section's last, partial round pair gives some CTAs one tile more than others, and the
//    rotation spreads those extras over the CTAs instead of handing them to the same ones in every section
//    (on the grid's causal cells the largest CTA share comes 0.0-0.6% above the mean, as in one global
//    list, D 256 S 2k 3.1% in both; without the rotation 3% at D 64, S 16k, which measured -2%, and 12% in a
//    case of the scheduler test, which fails without it). Neighbouring query tiles of a head run together
//    and walk the same keys in step, so their K/V tiles are shared in L2.
//  - The same masks with many heads (core::fwd_tiles_paired): a round of the global order would hold one
//    tile of each of `ctas` heads and reach a head's next tile only after every other head's K/V went
//    through L2, so the CTAs take pairs instead — a head's longest tile with its shortest, its second
//    longest with its second shortest, ... (equal work per pair under a causal mask) — heads outermost: a
//    CTA computes pair k * ctas + cta in its rounds 2k and 2k + 1 (the snake's positions of those rounds),
//    and the pairs of a head run in one round. An odd count's middle tile goes alone, after every pair.
//    A partial last round pair (R pairs, R < ctas) would leave R CTAs a whole pair more than the others; with
//    an even tile count its 2R tiles are dealt singly instead, longest first in the snake (CTA c takes
//    tiles c and 2 * ctas - 1 - c of the list), or those of it and of the whole round pair before it (four
//    rounds of the snake), whichever leaves the smaller largest share of a causal mask's work (the host
//    counts it), and only where that share is smaller than whole pairs leave (singles cost L2 reuse). Largest
//    shares in key tiles (causal; 1,024-4,096 pairs on 132 CTAs), whole pairs -> this, against the mean:
//    D 128 S 512 40 -> 39 (38.8), S 1k 72 -> 70 (69.8), S 2k 136 -> 133 (131.9); D 64 S 512 80 -> 78 (77.6);
//    GQA B 8 S 4k 1,056 -> 1,025 (1,024). Measured on an H100 (docs/PERF.md, session 50): +0.1-2.4% there.
//  - Unmasked problems have tiles of equal length: heads outermost, so the CTAs that run together read one
//    or a few heads' K and V and share them in L2. When the tiles are not a whole number of rounds, R < ctas
//    tiles would run a last round on R CTAs while the rest idle (3.1% of D 128 S 4k's time, measured; docs/
//    PERF.md, session 50); where the kernel allows it (Order::stream_start) the last whole round's and the
//    partial round's ctas + R tiles are walked as one stream of key tiles cut into ctas equal stretches,
//    a tile cut between two CTAs merged by the one holding its key tile 0 (FwdSplitTailSm90).
// (A static order needs no counter in device memory, so launches stay independent of each other.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/fast_divisor.hpp"
#include "core/heuristics.hpp"
#include "core/host_device.hpp"
#include "cuda/common/fwd_kernel_params.hpp"
#include "flashattn/tensor.hpp"

namespace flashattn::cuda::sm90 {

/// What the two CTAs of a cluster pair of the Hopper forward (the *_paired regimes) split
/// (core::fwd_pairs_sm90): two query heads of one kv head, or two neighbouring query tiles of one head;
/// either way both CTAs walk the same key tiles.
using FwdPairs = core::FwdPairsSm90;

/// Host: the constants the scheduler orders the tiles of `base` by. With GQA packing a head's tiles are
/// those of a kv head, whose query rows are the packed rows of its query heads: heads_kv heads of
/// ceil(max_seqlen_q * group / block_m) tiles (the caller checks that the packed rows fit an int). With
/// clusters of `cluster_size` CTAs (2: a pair), a tile of the order is a pair's, `pairs` says of which
/// two query heads or query tiles; the cluster's CTAs split it.
inline FwdKernelParams fwd_scheduled_params(const FwdKernelParams& base, bool pack_gqa, int block_m,
                                            int cluster_size = 1, FwdPairs pairs = FwdPairs::query_heads) {
  if (!pack_gqa) {
    FwdKernelParams paired = base;
    if (pairs == FwdPairs::query_tiles) {
      paired.num_m_blocks = base.num_m_blocks / cluster_size;
    } else {
      paired.problem.heads = base.problem.heads / cluster_size;
    }
    return paired;
  }
  FwdKernelParams packed = base;
  const std::int64_t group = base.problem.heads / base.problem.heads_kv;
  packed.problem.heads = base.problem.heads_kv;
  packed.num_m_blocks = static_cast<int>((base.problem.max_seqlen_q * group + block_m - 1) / block_m);
  return packed;
}

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
    std::int64_t positions = 0;  ///< Positions of the order (some empty: see section_positions, paired).
    int m_blocks = 0;            ///< Query tiles per head.
    int heads = 0;               ///< Query heads per batch entry.
    int batch_heads = 0;         ///< batch * heads
    int ctas = 0;                ///< CTAs to launch: one per SM, fewer with fewer work items.
    bool longest_first = false;  ///< Query tiles outermost within a section, last first (unequal tiles).
    int section_heads = 0;       ///< Longest first: (batch, head)s per section, whole kv heads.
    int section_tiles = 0;       ///< Longest first: m_blocks * section_heads.
    int sections = 1;            ///< Longest first: batch_heads / section_heads.
    bool paired = false;         ///< Pairs of one head's tiles, longest with shortest, heads outermost.
    /// Paired, even tile count: the first position of the last one or two round pairs, whose pairs' tiles
    /// are dealt singly, longest first (order.positions when there is none). Its pairs are those of (batch,
    /// head) tail_head from its pair tail_first_pair on and of the tail_heads_after (batch, head)s after it,
    /// so rank r (0: the last query tile) has a tile of tail_head when tail_first_pair <= r < m_blocks -
    /// tail_first_pair, and one of each later (batch, head) always; the list runs rank by rank, heads in
    /// order within a rank.
    std::int64_t tail_start = 0;
    int tail_head = 0;
    int tail_first_pair = 0;
    int tail_heads_after = 0;
    /// Equal tiles (unmasked) in a partial last round: the positions from stream_start on (the last whole
    /// round's and the partial round's tiles) are walked as one stream of their stream_keys key tiles each,
    /// CTA c taking units [stream_begin(c), stream_begin(c + 1)) (see stream_segment). stream_start is
    /// order.positions when there is no stream.
    std::int64_t stream_start = 0;
    int stream_keys = 0;
    int stream_units = 0;  ///< (positions - stream_start) * stream_keys (< 2^31: the host checks)
    // The divisors of tile(), which every CTA's producer and consumer warps decode each tile with.
    core::FastDivisor by_m_blocks;
    core::FastDivisor by_heads;
    core::FastDivisor by_ctas;
    core::FastDivisor by_pairs_per_head;  ///< m_blocks / 2 (paired orders; 1 when that is 0)
    core::FastDivisor by_section_heads;
    core::FastDivisor by_section_positions;  ///< section_tiles padded to whole round pairs
    core::FastDivisor by_sections;
    core::FastDivisor by_tail_heads_after;  ///< tail_heads_after (1 when that is 0)
    core::FastDivisor by_tail_heads;        ///< tail_heads_after + 1
    core::FastDivisor by_stream_keys;       ///< stream_keys (1 when there is no stream)
  };

  /// A CTA's piece of the stream: key tiles [n_begin, n_end) of the tile at position `position`. A tile cut
  /// in two has its key tiles from 0 at the end of one CTA's stretch (its owner, which merges) and the
  /// rest at the start of the next CTA's (the writer, which leaves its partial result in its own slot).
  struct Segment {
    std::int64_t position;
    int n_begin;
    int n_end;
    int partial_role;  ///< kWholeTile, kWritesPartial (into slot `cta`), kMergesPartial (of slot cta + 1)
  };
  static constexpr int kWholeTile = 0;
  static constexpr int kWritesPartial = 1;
  static constexpr int kMergesPartial = 2;

  /// Host: the order of `params` on a device of `multiprocessors` SMs. `stream_keys` > 0: the key tiles of
  /// every tile, when the kernel may walk a partial last round as a stream (Order::stream_start).
  static Order order(const FwdKernelParams& params, int multiprocessors, int stream_keys = 0) {
    Order order;
    order.m_blocks = params.num_m_blocks;
    order.heads = params.problem.heads;
    order.batch_heads = params.problem.batch * params.problem.heads;
    order.tiles = std::int64_t{order.m_blocks} * order.batch_heads;
    const bool unequal = params.problem.has_window();
    order.paired = core::fwd_tiles_paired(unequal, order.batch_heads, order.m_blocks, multiprocessors);
    order.longest_first = unequal && !order.paired;
    // A work item is a tile, or a pair (the middle tile of an odd count counted as one).
    const std::int64_t pairs = std::int64_t{(order.m_blocks + 1) / 2} * order.batch_heads;
    const std::int64_t items = order.paired ? pairs : order.tiles;
    order.ctas = static_cast<int>(std::min<std::int64_t>(items, multiprocessors));
    // Paired: every CTA walks whole round pairs (its pair's halves lie in two rounds of the snake).
    order.positions = order.paired ? 2 * order.ctas * ((pairs + order.ctas - 1) / order.ctas) : order.tiles;
    int section_positions = 1;
    if (order.longest_first) {
      const ForwardParams& p = params.problem;
      const std::int64_t kv_head_bytes = std::int64_t{p.max_seqlen_k} * (p.head_dim + p.head_dim_v) *
                                         static_cast<std::int64_t>(element_size(p.dtype));
      const int group = p.heads / p.heads_kv;  // the query heads of a kv head are neighbours
      order.section_heads = group * static_cast<int>(core::fwd_kv_heads_per_section(
                                        std::int64_t{p.batch} * p.heads_kv, kv_head_bytes));
      order.section_tiles = order.m_blocks * order.section_heads;
      const int round_pair = 2 * order.ctas;
      section_positions = (order.section_tiles + round_pair - 1) / round_pair * round_pair;
      order.sections = order.batch_heads / order.section_heads;
      order.positions = std::int64_t{section_positions} * order.sections;
    }
    order.by_m_blocks = core::FastDivisor(std::max(order.m_blocks, 1));
    order.by_heads = core::FastDivisor(std::max(order.heads, 1));
    order.by_ctas = core::FastDivisor(std::max(order.ctas, 1));
    order.by_pairs_per_head = core::FastDivisor(std::max(order.m_blocks / 2, 1));
    order.by_section_heads = core::FastDivisor(std::max(order.section_heads, 1));
    order.by_section_positions = core::FastDivisor(section_positions);
    order.by_sections = core::FastDivisor(order.sections);
    order.tail_start = order.positions;    // no tail unless set below
    order.stream_start = order.positions;  // no stream unless set below
    order.by_stream_keys = core::FastDivisor(1);
    const std::int64_t whole_rounds = order.tiles / std::max(order.ctas, 1);
    if (stream_keys > 0 && !order.paired && !order.longest_first && whole_rounds >= 1 &&
        order.tiles % order.ctas != 0 &&
        (order.tiles - (whole_rounds - 1) * order.ctas) * stream_keys < (std::int64_t{1} << 31)) {
      order.stream_start = (whole_rounds - 1) * order.ctas;
      order.stream_keys = stream_keys;
      order.stream_units = static_cast<int>((order.tiles - order.stream_start) * stream_keys);
      order.by_stream_keys = core::FastDivisor(stream_keys);
    }
    if (order.paired && order.m_blocks % 2 == 0 && pairs % order.ctas != 0) {
      // The partial last round pair dealt singly, or it and the whole round pair before it: whichever
      // leaves the smaller largest share (causal S 512 D 128: 39 key tiles against 40; D 64: 79 against 78).
      const std::int64_t whole = pairs / order.ctas * order.ctas;
      set_tail(order, whole);
      if (whole > 0) {
        const std::int64_t one_round_pair = largest_causal_share(order);
        set_tail(order, whole - order.ctas);
        if (largest_causal_share(order) >= one_round_pair) set_tail(order, whole);
      }
      // Singles spread a head's tiles over more rounds than its pairs do, so its K and V stay in L2 for
      // fewer of their re-reads: kept only where they shorten the largest share (D 256 S 512, B 32 x H 8:
      // 20 key tiles either way, and 0.973x measured with singles; docs/PERF.md, session 50).
      const std::int64_t whole_pairs_share = (pairs + order.ctas - 1) / order.ctas * (order.m_blocks + 1);
      if (largest_causal_share(order) >= whole_pairs_share) order.tail_start = order.positions;
    }
    return order;
  }

  /// Host: deals the tiles of the paired order's pairs from `first_pair` on singly (Order::tail_start; all of
  /// them pairs when first_pair * 2 is order.positions). `first_pair` is a whole number of rounds of pairs.
  static void set_tail(Order& order, std::int64_t first_pair) {
    const int full = std::max(order.m_blocks / 2, 1);
    order.tail_start = 2 * first_pair;
    order.tail_head = static_cast<int>(first_pair / full);
    order.tail_first_pair = static_cast<int>(first_pair - std::int64_t{order.tail_head} * full);
    order.tail_heads_after = std::max(order.batch_heads - order.tail_head - 1, 0);
    order.by_tail_heads_after = core::FastDivisor(std::max(order.tail_heads_after, 1));
    order.by_tail_heads = core::FastDivisor(order.tail_heads_after + 1);
  }

  /// Host: the largest CTA share of `order` (paired, with a tail) in key tiles of a causal mask on square
  /// tiles (query tile m walks m + 1), the pairs before the tail counted whole (m_blocks + 1 each).
  static std::int64_t largest_causal_share(const Order& order) {
    std::vector<std::int64_t> share(order.ctas, order.tail_start / (2 * order.ctas) * (order.m_blocks + 1));
    for (std::int64_t index = order.tail_start; index < order.positions; ++index) {
      const Tile tile = PersistentTileScheduler::tile(order, index);
      if (tile.m_block == order.m_blocks) break;  // past the tail's last tile
      const std::int64_t round = index / order.ctas;
      const int lane = static_cast<int>(index - round * order.ctas);
      share[(round & 1) == 0 ? lane : order.ctas - 1 - lane] += tile.m_block + 1;
    }
    return *std::max_element(share.begin(), share.end());
  }

  /// The position in the order of the tile CTA `cta` of `ctas` computes in its round `round` (may be
  /// >= order.positions in the last round: no tile): the snake, round r taking positions
  /// [r * ctas, (r + 1) * ctas), even rounds left to right, odd rounds right to left.
  FLASHATTN_HOST_DEVICE static std::int64_t position(int cta, int ctas, std::int64_t round) {
    return round * ctas + ((round & 1) == 0 ? cta : ctas - 1 - cta);
  }

  /// Host: how many tiles of the stream two CTAs share (a stretch that starts inside a tile cuts it).
  static int cut_tiles(const Order& order) {
    int cut = 0;
    for (int cta = 1; cta < order.ctas && order.stream_keys > 0; ++cta) {
      if (stream_begin(order, cta) % order.stream_keys != 0) ++cut;
    }
    return cut;
  }

  /// The first unit of the stream CTA `cta` walks (cta = order.ctas: the end of the stream).
  FLASHATTN_HOST_DEVICE static int stream_begin(const Order& order, int cta) {
    return static_cast<int>(std::int64_t{order.stream_units} * cta / order.ctas);
  }

  /// The piece of the stream that starts at unit `unit` of a CTA's stretch, which ends at unit `end`. Every
  /// stretch is at least one tile long (the stream holds more than ctas tiles), so a tile is whole or cut
  /// once: its owner's piece ends the owner's stretch, its writer's piece starts the next CTA's.
  FLASHATTN_HOST_DEVICE static Segment stream_segment(const Order& order, int unit, int end) {
    const int tile = order.by_stream_keys.div(unit);
    Segment segment;
    segment.position = order.stream_start + tile;
    segment.n_begin = unit - tile * order.stream_keys;
    const int n_end = segment.n_begin + (end - unit);
    segment.n_end = n_end < order.stream_keys ? n_end : order.stream_keys;
    segment.partial_role = segment.n_begin > 0                 ? kWritesPartial
                           : segment.n_end < order.stream_keys ? kMergesPartial
                                                               : kWholeTile;
    return segment;
  }

  /// The tile at position `index` (< order.positions) of the order. m_block == order.m_blocks (past every
  /// sequence's last tile, so the CTA skips it) marks a position with no tile: the empty second half of an
  /// odd count's middle tile, a pair past the last in the last round pair, or a section's padding.
  FLASHATTN_HOST_DEVICE static Tile tile(const Order& order, std::int64_t position) {
    // 32-bit arithmetic: the launcher keeps order.positions below 2^31.
    const int index = static_cast<int>(position);
    int rank;  // 0 = the last query tile of a head
    int batch_head;
    if (index >= order.tail_start) {
      // The last round pairs' tiles, one per position, rank by rank (see Order::tail_start).
      const int t = index - static_cast<int>(order.tail_start);
      const int after = order.tail_heads_after;
      const int outer = order.tail_first_pair * after;  // ranks [0, tail_first_pair), later heads only
      const int middle = (order.m_blocks - 2 * order.tail_first_pair) * (after + 1);
      if (t < outer) {
        rank = order.by_tail_heads_after.div(t);
        batch_head = order.tail_head + 1 + (t - rank * after);
      } else if (t < outer + middle) {
        const int u = t - outer;
        const int step = order.by_tail_heads.div(u);
        rank = order.tail_first_pair + step;
        batch_head = order.tail_head + (u - step * (after + 1));
      } else if (t < 2 * outer + middle) {
        const int u = t - outer - middle;
        const int step = order.by_tail_heads_after.div(u);
        rank = order.m_blocks - order.tail_first_pair + step;
        batch_head = order.tail_head + 1 + (u - step * after);
      } else {
        return {order.m_blocks, 0, 0};
      }
    } else if (order.paired) {
      // CTA c's snake positions of rounds 2k and 2k + 1 hold the two halves of pair k * ctas + c.
      const int round = order.by_ctas.div(index);
      const int lane = index - round * order.ctas;
      const int pair = (round >> 1) * order.ctas + ((round & 1) == 0 ? lane : order.ctas - 1 - lane);
      const int second = round & 1;
      const int full = order.m_blocks / 2;  // pairs of two tiles per head
      const int full_pairs = full * order.batch_heads;
      if (pair < full_pairs) {
        batch_head = order.by_pairs_per_head.div(pair);
        const int j = pair - batch_head * full;
        rank = second == 0 ? j : order.m_blocks - 1 - j;
      } else if (pair < full_pairs + (order.m_blocks & 1) * order.batch_heads) {
        // The middle tile of an odd count, alone, after every pair (light work last).
        batch_head = pair - full_pairs;
        rank = second == 0 ? full : -1;
      } else {
        return {order.m_blocks, 0, 0};
      }
    } else if (order.longest_first) {
      const int section = order.by_section_positions.div(index);
      int within = index - section * order.by_section_positions.divisor();
      // Sections start at even rounds: the snake's lane of this CTA, whose role rotates by section
      // (section * ctas < 2^31: the longest-first order serves fewer than 2 * ctas (batch, head)s).
      const int round = order.by_ctas.div(within);
      const int lane = within - round * order.ctas;
      const bool forward = (round & 1) == 0;
      int cta = (forward ? lane : order.ctas - 1 - lane) + order.by_sections.div(section * order.ctas);
      if (cta >= order.ctas) cta -= order.ctas;
      within = round * order.ctas + (forward ? cta : order.ctas - 1 - cta);
      if (within >= order.section_tiles) return {order.m_blocks, 0, 0};
      rank = order.by_section_heads.div(within);
      batch_head = section * order.section_heads + (within - rank * order.section_heads);
    } else {
      batch_head = order.by_m_blocks.div(index);
      rank = index - batch_head * order.m_blocks;
    }
    const int batch = order.by_heads.div(batch_head);
    return {order.m_blocks - 1 - rank, batch_head - batch * order.heads, batch};
  }
};

}  // namespace flashattn::cuda::sm90
