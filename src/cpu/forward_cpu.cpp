// flashattn — CPU forward: FlashAttention-2 style online softmax over lane tiles.
//
// A work item is (b, h, 64 query rows). Its queries are the lanes of every tile, so Q is transposed once
// per item into q_t (D, 64) and K, V are read in their natural row layout: S^T = K · Q^T and
// O^T += V^T · P^T are both lane-tile products (tile_gemm.hpp), and the softmax statistics of the 64
// query rows are 4 vectors updated with lane-wise max/exp2/add — no horizontal reductions anywhere.
// Key tiles outside the window of the item's rows are never visited; rows of a visited tile that cross
// the window edge are masked lane-wise (ScoreMath::apply).
#include <omp.h>

#include <algorithm>
#include <cstdint>
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

// Keys per inner step. With D = Dv = 128 the step's K, V and S^T tiles plus the item's Q^T and O^T are
// 5 x 32 KiB, resident in the 1 MiB L2; the products stream B from L1/L2 at well under the FMA rate.
constexpr int kBlockN = 64;

/// Per-thread tiles of the forward.
struct ForwardTiles {
  float* q_t;     // (D, lanes)   queries of the item, transposed
  float* o_t;     // (Dv, lanes)  unnormalised output accumulator, transposed
  float* k_rows;  // (kBlockN, D)
  float* v_rows;  // (kBlockN, Dv)
  float* s_t;     // (kBlockN, lanes) scores, then probabilities, of the step

  static Scratch allocate(const ForwardParams& p) {
    const std::size_t lanes = kTileLanes;
    return Scratch({p.head_dim * lanes, p.head_dim_v * lanes, kBlockN * std::size_t(p.head_dim),
                    kBlockN * std::size_t(p.head_dim_v), kBlockN * lanes});
  }
  explicit ForwardTiles(const Scratch& s)
      : q_t(s.tile(0)), o_t(s.tile(1)), k_rows(s.tile(2)), v_rows(s.tile(3)), s_t(s.tile(4)) {}
};

template <class T>
void forward_item(const ForwardParams& p, const WorkGrid::Item& item, const ForwardTiles& tiles) {
  const int b = item.b;
  const int h = item.head;
  const int kvh = p.kv_head(h);
  const std::int64_t sq = p.seqlen_q(b);
  const std::int64_t i0 = item.first_row;
  if (i0 >= sq) return;
  const int rows = static_cast<int>(std::min<std::int64_t>(kTileLanes, sq - i0));
  const int d = p.head_dim;
  const int dv = p.head_dim_v;
  const std::int64_t q_start = p.q_start(b);
  const std::int64_t k_start = p.k_start(b);
  const SequenceWindow window(sq, p.seqlen_k(b), p.window_left, p.window_right);
  const ScoreMath math(p, b, h);

  load_transposed(row_pointer<const T>(p.q, p.q_strides, b, q_start, i0, h), p.q_strides.row, rows, d,
                  tiles.q_t);
  std::fill_n(tiles.o_t, std::size_t(dv) * kTileLanes, 0.0f);
  SoftmaxState<Vec> state[kTileVecs];

  const IndexRange keys = window.keys_of({i0, i0 + rows});
  for (std::int64_t j0 = keys.begin; j0 < keys.end; j0 += kBlockN) {
    const int n = static_cast<int>(std::min<std::int64_t>(kBlockN, keys.end - j0));
    load_rows(row_pointer<const T>(p.k, p.k_strides, b, k_start, j0, kvh), p.k_strides.row, n, d,
              tiles.k_rows, d);
    load_rows(row_pointer<const T>(p.v, p.v_strides, b, k_start, j0, kvh), p.v_strides.row, n, dv,
              tiles.v_rows, dv);
    if (j0 + kBlockN < keys.end) {
      const int next = static_cast<int>(std::min<std::int64_t>(kBlockN, keys.end - j0 - kBlockN));
      prefetch_rows(row_pointer<const T>(p.k, p.k_strides, b, k_start, j0 + kBlockN, kvh), p.k_strides.row,
                    next, d);
      prefetch_rows(row_pointer<const T>(p.v, p.v_strides, b, k_start, j0 + kBlockN, kvh), p.v_strides.row,
                    next, dv);
    }

    // S^T (n, lanes) = K (n, D) · Q^T (D, lanes), then scores in the log2 domain.
    tile_gemm<false>(n, d, {tiles.k_rows, d, 1}, tiles.q_t, kTileLanes, tiles.s_t, kTileLanes);
    Vec block_max[kTileVecs];
    for (Vec& m : block_max) m = splat(kNegInf);
    for (int r = 0; r < n; ++r) {
      const std::int64_t j = j0 + r;
      float* row = tiles.s_t + r * kTileLanes;
      math.apply(row, i0 + window.offset() - j, +1, window.query_lanes(j, i0, rows), nullptr);
      for (int v = 0; v < kTileVecs; ++v) block_max[v] = max(block_max[v], load(row + v * kVecLanes));
    }

    // Online softmax: P^T = 2^(t - reference) in place, row sums folded into the state.
    Vec reference[kTileVecs], alpha[kTileVecs], block_sum[kTileVecs];
    for (int v = 0; v < kTileVecs; ++v) {
      reference[v] = state[v].rescale(block_max[v], alpha[v]);
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
    for (int v = 0; v < kTileVecs; ++v) state[v].add(block_sum[v]);

    // O^T (Dv, lanes) = alpha * O^T + V^T (Dv, n) · P^T (n, lanes).
    for (int c = 0; c < dv; ++c) {
      float* row = tiles.o_t + c * kTileLanes;
      for (int v = 0; v < kTileVecs; ++v) store(row + v * kVecLanes, load(row + v * kVecLanes) * alpha[v]);
    }
    tile_gemm<true>(dv, n, {tiles.v_rows, 1, dv}, tiles.s_t, kTileLanes, tiles.o_t, kTileLanes);
  }

  alignas(64) float inverse_sum[kTileLanes];
  for (int v = 0; v < kTileVecs; ++v) store(inverse_sum + v * kVecLanes, state[v].inverse_sum());
  store_transposed(tiles.o_t, inverse_sum, rows, dv, row_pointer<T>(p.out, p.out_strides, b, q_start, i0, h),
                   p.out_strides.row);
  if (p.lse) {
    float* lse = p.lse + b * p.lse_batch_stride + h * p.lse_head_stride + q_start + i0;
    for (int r = 0; r < rows; ++r) lse[r] = log_sum_exp(lane_of(state[r / kVecLanes], r % kVecLanes));
  }
}

template <class T>
Status run_forward(const ForwardParams& p, int threads) {
  int longest_q = 0;
  for (int b = 0; b < p.batch; ++b) longest_q = std::max(longest_q, p.seqlen_q(b));
  const WorkGrid grid(p.batch, p.heads, longest_q);

  std::vector<Scratch> scratch;
  for (int t = 0; t < threads; ++t) {
    scratch.push_back(ForwardTiles::allocate(p));
    if (!scratch.back().ok()) return {StatusCode::internal, "cpu forward: scratch allocation failed"};
  }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t index = 0; index < grid.size(); ++index) {
    forward_item<T>(p, grid[index], ForwardTiles(scratch[omp_get_thread_num()]));
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
