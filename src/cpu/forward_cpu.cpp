// flashattn — CPU forward: FlashAttention-2 style online softmax over lane tiles.
//
// A work item is (b, h, up to kItemTiles tiles of 64 query rows). The queries are the lanes of every
// tile, so Q is transposed once per tile into q_t (D, 64) and K, V are read in their natural row layout:
// S^T = K · Q^T and O^T += V^T · P^T are both lane-tile products (tile_gemm.hpp), and the softmax
// statistics of the 64 query rows are 4 vectors updated with lane-wise max/exp2/add — no horizontal
// reductions anywhere. Each key block is loaded (widened, packed) once per item and used by all of its
// tiles, which divides the strided K/V traffic — rows a token apart that the hardware prefetchers do not
// follow — by the tiles per item.
//
// Key blocks lie on a fixed grid (multiples of kBlockN from key 0), and a tile visits exactly the blocks
// that meet its own window, using only the keys of the block inside it. The computation of a query row
// therefore never depends on which item or how many tiles per item it belongs to, so the tiles per item
// may follow the thread count without changing a bit. Rows of a visited block that cross the window edge
// are masked lane-wise (ScoreMath::apply).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "cpu/element_type.hpp"
#include "cpu/exp2.hpp"
#include "cpu/mask.hpp"
#include "cpu/scores.hpp"
#include "cpu/scratch.hpp"
#include "cpu/softmax_state.hpp"
#include "cpu/tile_gemm.hpp"
#include "cpu/tile_loader.hpp"
#include "cpu/work_items.hpp"

namespace flashattn::cpu {
namespace {

// Keys per inner step. With D = Dv = 128 the step's K, V and S^T tiles plus one tile's Q^T and O^T are
// 5 x 32 KiB, and the item's other tiles' Q^T and O^T 6 x 32 KiB more: all resident in the 1 MiB L2.
constexpr int kBlockN = 64;
// Lane tiles per item, at most: 4 divides the K/V block loads by 4 while the item's tiles still fit L2.
constexpr int kItemTiles = 4;
// Items the grid keeps per thread, at least, for dynamic load balancing (fewer tiles per item if needed).
constexpr std::int64_t kItemsPerThread = 4;

/// Per-thread tiles of the forward.
struct ForwardTiles {
  float* q_t;     // kItemTiles x (D, lanes)   queries of each tile, transposed
  float* o_t;     // kItemTiles x (Dv, lanes)  unnormalised output accumulators, transposed
  float* k_rows;  // (kBlockN, D)
  float* v_rows;  // (kBlockN, Dv)
  float* s_t;     // (kBlockN, lanes) scores, then probabilities, of one tile's step

  static Scratch allocate(const ForwardParams& p) {
    const std::size_t lanes = kTileLanes;
    return Scratch({kItemTiles * p.head_dim * lanes, kItemTiles * p.head_dim_v * lanes,
                    kBlockN * std::size_t(p.head_dim), kBlockN * std::size_t(p.head_dim_v), kBlockN * lanes});
  }
  explicit ForwardTiles(const Scratch& s)
      : q_t(s.tile(0)), o_t(s.tile(1)), k_rows(s.tile(2)), v_rows(s.tile(3)), s_t(s.tile(4)) {}
};

/// One lane tile of an item: 64 query rows with their transposed queries, accumulator and softmax state.
struct QueryTile {
  std::int64_t i0 = 0;  ///< First query row.
  int rows = 0;         ///< Query rows that exist (the other lanes are computed and never stored).
  IndexRange keys;      ///< Keys kept by at least one of the rows.
  float* q_t = nullptr;
  float* o_t = nullptr;
  SoftmaxState<Vec> state[kTileVecs];
};

/// One step of a tile: keys [j0, j0 + n) of the packed K and V rows (n >= 1, all inside tile.keys).
inline void tile_step(QueryTile& tile, std::int64_t j0, int n, int d, int dv, const SequenceWindow& window,
                      const ScoreMath& math, const ForwardTiles& tiles) {
  // S^T (n, lanes) = K (n, D) · Q^T (D, lanes), then scores in the log2 domain.
  tile_gemm<false>(n, d, {tiles.k_rows, d, 1}, tile.q_t, kTileLanes, tiles.s_t, kTileLanes);
  Vec block_max[kTileVecs];
  for (Vec& m : block_max) m = splat(kNegInf);
  for (int r = 0; r < n; ++r) {
    const std::int64_t j = j0 + r;
    float* row = tiles.s_t + r * kTileLanes;
    math.apply(row, tile.i0 + window.offset() - j, +1, window.query_lanes(j, tile.i0, tile.rows), nullptr);
    for (int v = 0; v < kTileVecs; ++v) block_max[v] = max(block_max[v], load(row + v * kVecLanes));
  }

  // Online softmax: P^T = 2^(t - reference) in place, row sums folded into the state.
  Vec reference[kTileVecs], alpha[kTileVecs], block_sum[kTileVecs];
  for (int v = 0; v < kTileVecs; ++v) {
    reference[v] = tile.state[v].rescale(block_max[v], alpha[v]);
    block_sum[v] = Vec{};
  }
  for (int r = 0; r < n; ++r) {
    float* row = tiles.s_t + r * kTileLanes;
    for (int v = 0; v < kTileVecs; ++v) {
      const Vec prob = exp2(load(row + v * kVecLanes) - reference[v]);
      store(row + v * kVecLanes, prob);
      block_sum[v] += prob;
    }
  }
  for (int v = 0; v < kTileVecs; ++v) tile.state[v].add(block_sum[v]);

  // O^T (Dv, lanes) = alpha * O^T + V^T (Dv, n) · P^T (n, lanes).
  for (int c = 0; c < dv; ++c) {
    float* row = tile.o_t + c * kTileLanes;
    for (int v = 0; v < kTileVecs; ++v) store(row + v * kVecLanes, load(row + v * kVecLanes) * alpha[v]);
  }
  tile_gemm<true>(dv, n, {tiles.v_rows, 1, dv}, tiles.s_t, kTileLanes, tile.o_t, kTileLanes);
}

template <class T>
void forward_item(const ForwardParams& p, const WorkGrid& grid, const WorkGrid::Item& item,
                  const ForwardTiles& tiles) {
  const int b = item.b;
  const int h = item.head;
  const int kvh = p.kv_head(h);
  const std::int64_t sq = p.seqlen_q(b);
  const int d = p.head_dim;
  const int dv = p.head_dim_v;
  const std::int64_t q_start = p.q_start(b);
  const SequenceWindow window(sq, p.seqlen_k(b), p.window_left, p.window_right);
  const ScoreMath math(p, b, h);

  QueryTile query_tiles[kItemTiles];
  int tile_count = 0;
  IndexRange keys{std::numeric_limits<std::int64_t>::max(), 0};
  for (int t = 0; t < grid.item_tiles; ++t) {
    const std::int64_t i0 = item.first_row + std::int64_t{t} * kTileLanes;
    if (i0 >= sq) break;
    QueryTile& tile = query_tiles[tile_count++];
    tile.i0 = i0;
    tile.rows = static_cast<int>(std::min<std::int64_t>(kTileLanes, sq - i0));
    tile.keys = window.keys_of({i0, i0 + tile.rows});
    tile.q_t = tiles.q_t + std::size_t(t) * d * kTileLanes;
    tile.o_t = tiles.o_t + std::size_t(t) * dv * kTileLanes;
    load_transposed(row_pointer<const T>(p.q, p.q_strides, b, q_start, i0, h), p.q_strides.row, tile.rows, d,
                    tile.q_t);
    std::fill_n(tile.o_t, std::size_t(dv) * kTileLanes, 0.0f);
    if (!tile.keys.empty()) keys = {std::min(keys.begin, tile.keys.begin), std::max(keys.end, tile.keys.end)};
  }

  for (std::int64_t j0 = keys.begin / kBlockN * kBlockN; j0 < keys.end; j0 += kBlockN) {
    const int n = static_cast<int>(std::min<std::int64_t>(kBlockN, keys.end - j0));
    load_kv_rows<T>(p, p.k, p.k_strides, b, j0, n, kvh, d, tiles.k_rows);
    load_kv_rows<T>(p, p.v, p.v_strides, b, j0, n, kvh, dv, tiles.v_rows);
    if (j0 + kBlockN < keys.end) {
      const int next = static_cast<int>(std::min<std::int64_t>(kBlockN, keys.end - j0 - kBlockN));
      prefetch_kv_rows<T>(p, p.k, p.k_strides, b, j0 + kBlockN, next, kvh, d);
      prefetch_kv_rows<T>(p, p.v, p.v_strides, b, j0 + kBlockN, next, kvh, dv);
    }
    for (int t = 0; t < tile_count; ++t) {
      QueryTile& tile = query_tiles[t];
      // The tile's own blocks: from the grid block holding its first key to its last key.
      if (tile.keys.empty() || j0 < tile.keys.begin / kBlockN * kBlockN || j0 >= tile.keys.end) continue;
      const int tile_n = static_cast<int>(std::min<std::int64_t>(n, tile.keys.end - j0));
      tile_step(tile, j0, tile_n, d, dv, window, math, tiles);
    }
  }

  for (int t = 0; t < tile_count; ++t) {
    const QueryTile& tile = query_tiles[t];
    alignas(64) float inverse_sum[kTileLanes];
    for (int v = 0; v < kTileVecs; ++v) store(inverse_sum + v * kVecLanes, tile.state[v].inverse_sum());
    store_transposed(tile.o_t, inverse_sum, tile.rows, dv,
                     row_pointer<T>(p.out, p.out_strides, b, q_start, tile.i0, h), p.out_strides.row);
    if (p.lse) {
      float* lse = p.lse + b * p.lse_batch_stride + h * p.lse_head_stride + q_start + tile.i0;
      for (int r = 0; r < tile.rows; ++r) {
        lse[r] = log_sum_exp(lane_of(tile.state[r / kVecLanes], r % kVecLanes));
      }
    }
  }
}

/// Tiles per item: kItemTiles unless that leaves fewer than kItemsPerThread items per thread.
int item_tiles_for(std::int64_t total_tiles, int threads) {
  const std::int64_t per_item = total_tiles / (kItemsPerThread * threads);
  return static_cast<int>(std::clamp<std::int64_t>(per_item, 1, kItemTiles));
}

template <class T>
Status run_forward(const ForwardParams& p, int threads) {
  int longest_q = 0;
  for (int b = 0; b < p.batch; ++b) longest_q = std::max(longest_q, p.seqlen_q(b));
  const std::int64_t total_tiles = WorkGrid(p.batch, p.heads, longest_q).size();
  const WorkGrid grid(p.batch, p.heads, longest_q, item_tiles_for(total_tiles, threads));

  std::vector<Scratch> scratch;
  for (int t = 0; t < threads; ++t) {
    scratch.push_back(ForwardTiles::allocate(p));
    if (!scratch.back().ok()) return {StatusCode::internal, "cpu forward: scratch allocation failed"};
  }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t index = 0; index < grid.size(); ++index) {
    forward_item<T>(p, grid, grid[index], ForwardTiles(scratch[omp_get_thread_num()]));
  }
  return Status::success();
}

}  // namespace

Status forward(const ForwardParams& params, int num_threads, RunInfo& info) {
  const int threads = resolve_threads(num_threads);
  const Status status = with_element_type(
      params.dtype, [&](auto element) { return run_forward<decltype(element)>(params, threads); });
  if (!status.ok()) return status;
  info.backend = Backend::cpu;
  info.kernel = std::string("fwd_cpu_") + to_string(params.dtype);
  info.block_m = kTileLanes;
  info.block_n = kBlockN;
  info.num_threads = threads;
  info.launched = true;
  return status;
}

}  // namespace flashattn::cpu
