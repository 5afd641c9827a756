// flashattn — CPU backward: two passes that each own their outputs, so no accumulation is shared between
// threads and the gradients are bitwise identical across reruns and thread counts.
//
// Both passes recompute P = 2^(t - lse * log2(e)) from the forward's lse (nothing of size Sq x Sk is
// stored) and D_i = rowsum(dO_i ∘ O_i) for the rows they visit, then dS = P ∘ (dP - D) (times the
// softcap derivative 1 - tanh^2 when soft capping).
//   dK/dV pass: item = (b, kv head, 64 keys); keys are the lanes. K^T and V^T are transposed once per
//     item; for every query head of the group and every 64-row query block that sees the keys:
//     S = Q · K^T, dV^T += dO^T · P, dP = dO · V^T, dK^T += Q^T · dS.
//   dQ pass: item = (b, head, 64 queries); queries are the lanes (as in the forward). For every key
//     block in the window: S^T = K · Q^T, dP^T = V · dO^T, dQ^T += K^T · dS^T.
// A row with lse = -inf (no key kept) gets P = 0 and therefore zero gradients.
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
#include "cpu/tile_gemm.hpp"
#include "cpu/tile_loader.hpp"
#include "cpu/work_items.hpp"

namespace flashattn::cpu {
namespace {

// Rows of the non-lane dimension per inner step (query rows in the dK/dV pass, keys in the dQ pass);
// the same L2 budget reasoning as the forward's kBlockN.
constexpr int kBlockInner = 64;

/// The exponent reference of a row: lse in the log2 domain, or +inf for a row without keys so that
/// 2^(t - reference) is exactly 0 (t is finite or -inf).
inline float lse_reference(float lse) {
  return lse == kNegInf ? std::numeric_limits<float>::infinity() : lse * kLog2e;
}

/// dS = P ∘ (dP - D) [∘ (1 - tanh^2)] for one lane-tile row, in place in dp_row.
inline void delta_scores_row(const float* p_row, float* dp_row, const Vec d_sum[kTileVecs],
                             const float* dtanh_row) {
  for (int v = 0; v < kTileVecs; ++v) {
    Vec ds = load(p_row + v * kVecLanes) * (load(dp_row + v * kVecLanes) - d_sum[v]);
    if (dtanh_row) ds *= load(dtanh_row + v * kVecLanes);
    store(dp_row + v * kVecLanes, ds);
  }
}

/// Per-thread tiles of the dK/dV pass.
struct KeyPassTiles {
  float* k_t;      // (D, lanes)
  float* v_t;      // (Dv, lanes)
  float* dk_t;     // (D, lanes)
  float* dv_t;     // (Dv, lanes)
  float* q_rows;   // (kBlockInner, D)
  float* do_rows;  // (kBlockInner, Dv)
  float* o_rows;   // (kBlockInner, Dv)
  float* p_tile;   // (kBlockInner, lanes) scores, then P
  float* dp_tile;  // (kBlockInner, lanes) dP, then dS
  float* dtanh;    // (kBlockInner, lanes) softcap derivative

  static Scratch allocate(const BackwardParams& p) {
    const std::size_t lanes = kTileLanes, d = p.head_dim, dv = p.head_dim_v;
    return Scratch({d * lanes, dv * lanes, d * lanes, dv * lanes, kBlockInner * d, kBlockInner * dv,
                    kBlockInner * dv, kBlockInner * lanes, kBlockInner * lanes, kBlockInner * lanes});
  }
  explicit KeyPassTiles(const Scratch& s)
      : k_t(s.tile(0)),
        v_t(s.tile(1)),
        dk_t(s.tile(2)),
        dv_t(s.tile(3)),
        q_rows(s.tile(4)),
        do_rows(s.tile(5)),
        o_rows(s.tile(6)),
        p_tile(s.tile(7)),
        dp_tile(s.tile(8)),
        dtanh(s.tile(9)) {}
};

template <class T>
void key_pass_item(const BackwardParams& p, const WorkGrid::Item& item, const KeyPassTiles& tiles) {
  const int b = item.b;
  const int kvh = item.head;
  const std::int64_t sk = p.seqlen_k(b);
  const std::int64_t j0 = item.first_row;
  if (j0 >= sk) return;
  const int keys = static_cast<int>(std::min<std::int64_t>(kTileLanes, sk - j0));
  const int d = p.head_dim;
  const int dv = p.head_dim_v;
  const std::int64_t sq = p.seqlen_q(b);
  const std::int64_t q_start = p.q_start(b);
  const std::int64_t k_start = p.k_start(b);
  const SequenceWindow window(sq, sk, p.window_left, p.window_right);
  const IndexRange queries = window.queries_of({j0, j0 + keys});
  const int group = p.heads / p.heads_kv;

  load_transposed(row_pointer<const T>(p.k, p.k_strides, b, k_start, j0, kvh), p.k_strides.row, keys, d,
                  tiles.k_t);
  load_transposed(row_pointer<const T>(p.v, p.v_strides, b, k_start, j0, kvh), p.v_strides.row, keys, dv,
                  tiles.v_t);
  std::fill_n(tiles.dk_t, std::size_t(d) * kTileLanes, 0.0f);
  std::fill_n(tiles.dv_t, std::size_t(dv) * kTileLanes, 0.0f);

  for (int h = kvh * group; h < (kvh + 1) * group; ++h) {
    const ScoreMath math(p, b, h);
    const float* lse = p.lse + b * p.lse_batch_stride + h * p.lse_head_stride + q_start;
    for (std::int64_t i0 = queries.begin; i0 < queries.end; i0 += kBlockInner) {
      const int m = static_cast<int>(std::min<std::int64_t>(kBlockInner, queries.end - i0));
      load_rows(row_pointer<const T>(p.q, p.q_strides, b, q_start, i0, h), p.q_strides.row, m, d,
                tiles.q_rows, d);
      load_rows(row_pointer<const T>(p.dout, p.dout_strides, b, q_start, i0, h), p.dout_strides.row, m, dv,
                tiles.do_rows, dv);
      load_rows(row_pointer<const T>(p.out, p.out_strides, b, q_start, i0, h), p.out_strides.row, m, dv,
                tiles.o_rows, dv);

      // S (m, lanes) = Q (m, D) · K^T (D, lanes); P = 2^(t - lse) row by row.
      tile_gemm<false>(m, d, {tiles.q_rows, d, 1}, tiles.k_t, kTileLanes, tiles.p_tile, kTileLanes);
      float row_d[kBlockInner];  // D_i = rowsum(dO_i ∘ O_i)
      for (int r = 0; r < m; ++r) {
        const std::int64_t i = i0 + r;
        float* row = tiles.p_tile + r * kTileLanes;
        float* dtanh_row = math.softcap ? tiles.dtanh + r * kTileLanes : nullptr;
        math.apply(row, i + window.offset() - j0, -1, window.key_lanes(i, j0, keys), dtanh_row);
        const Vec reference = splat(lse_reference(lse[i]));
        for (int v = 0; v < kTileVecs; ++v)
          store(row + v * kVecLanes, exp2(load(row + v * kVecLanes) - reference));
        float dot = 0.0f;
        for (int c = 0; c < dv; ++c) dot += tiles.do_rows[r * dv + c] * tiles.o_rows[r * dv + c];
        row_d[r] = dot;
      }

      // dV^T (Dv, lanes) += dO^T (Dv, m) · P (m, lanes).
      tile_gemm<true>(dv, m, {tiles.do_rows, 1, dv}, tiles.p_tile, kTileLanes, tiles.dv_t, kTileLanes);
      // dP (m, lanes) = dO (m, Dv) · V^T (Dv, lanes); dS in place.
      tile_gemm<false>(m, dv, {tiles.do_rows, dv, 1}, tiles.v_t, kTileLanes, tiles.dp_tile, kTileLanes);
      for (int r = 0; r < m; ++r) {
        const Vec d_row = splat(row_d[r]);
        const Vec d_lanes[kTileVecs] = {d_row, d_row, d_row, d_row};
        delta_scores_row(tiles.p_tile + r * kTileLanes, tiles.dp_tile + r * kTileLanes, d_lanes,
                         math.softcap ? tiles.dtanh + r * kTileLanes : nullptr);
      }
      // dK^T (D, lanes) += Q^T (D, m) · dS (m, lanes).
      tile_gemm<true>(d, m, {tiles.q_rows, 1, d}, tiles.dp_tile, kTileLanes, tiles.dk_t, kTileLanes);
    }
  }

  alignas(64) float scale[kTileLanes];
  alignas(64) float one[kTileLanes];
  std::fill_n(scale, kTileLanes, p.scale);
  std::fill_n(one, kTileLanes, 1.0f);
  store_transposed(tiles.dk_t, scale, keys, d, row_pointer<T>(p.dk, p.dk_strides, b, k_start, j0, kvh),
                   p.dk_strides.row);
  store_transposed(tiles.dv_t, one, keys, dv, row_pointer<T>(p.dv, p.dv_strides, b, k_start, j0, kvh),
                   p.dv_strides.row);
}

/// Per-thread tiles of the dQ pass.
struct QueryPassTiles {
  float* q_t;     // (D, lanes)
  float* do_t;    // (Dv, lanes)
  float* dq_t;    // (D, lanes); holds O^T while D is computed
  float* k_rows;  // (kBlockInner, D)
  float* v_rows;  // (kBlockInner, Dv)
  float* p_t;     // (kBlockInner, lanes) scores, then P^T
  float* dp_t;    // (kBlockInner, lanes) dP^T, then dS^T
  float* dtanh;   // (kBlockInner, lanes) softcap derivative

  static Scratch allocate(const BackwardParams& p) {
    const std::size_t lanes = kTileLanes, d = p.head_dim, dv = p.head_dim_v;
    return Scratch({d * lanes, dv * lanes, std::max(d, dv) * lanes, kBlockInner * d, kBlockInner * dv,
                    kBlockInner * lanes, kBlockInner * lanes, kBlockInner * lanes});
  }
  explicit QueryPassTiles(const Scratch& s)
      : q_t(s.tile(0)),
        do_t(s.tile(1)),
        dq_t(s.tile(2)),
        k_rows(s.tile(3)),
        v_rows(s.tile(4)),
        p_t(s.tile(5)),
        dp_t(s.tile(6)),
        dtanh(s.tile(7)) {}
};

template <class T>
void query_pass_item(const BackwardParams& p, const WorkGrid::Item& item, const QueryPassTiles& tiles) {
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
  load_transposed(row_pointer<const T>(p.dout, p.dout_strides, b, q_start, i0, h), p.dout_strides.row, rows,
                  dv, tiles.do_t);
  // D (lanes) = rowsum(dO ∘ O), with O^T borrowed from the dQ^T tile before it is cleared.
  load_transposed(row_pointer<const T>(p.out, p.out_strides, b, q_start, i0, h), p.out_strides.row, rows, dv,
                  tiles.dq_t);
  Vec d_lanes[kTileVecs] = {};
  for (int c = 0; c < dv; ++c) {
    for (int v = 0; v < kTileVecs; ++v) {
      const int at = c * kTileLanes + v * kVecLanes;
      d_lanes[v] += load(tiles.do_t + at) * load(tiles.dq_t + at);
    }
  }
  std::fill_n(tiles.dq_t, std::size_t(d) * kTileLanes, 0.0f);
  alignas(64) float reference_lanes[kTileLanes];
  const float* lse = p.lse + b * p.lse_batch_stride + h * p.lse_head_stride + q_start + i0;
  for (int r = 0; r < kTileLanes; ++r) {
    reference_lanes[r] = r < rows ? lse_reference(lse[r]) : std::numeric_limits<float>::infinity();
  }

  const IndexRange keys = window.keys_of({i0, i0 + rows});
  for (std::int64_t j0 = keys.begin; j0 < keys.end; j0 += kBlockInner) {
    const int n = static_cast<int>(std::min<std::int64_t>(kBlockInner, keys.end - j0));
    load_rows(row_pointer<const T>(p.k, p.k_strides, b, k_start, j0, kvh), p.k_strides.row, n, d,
              tiles.k_rows, d);
    load_rows(row_pointer<const T>(p.v, p.v_strides, b, k_start, j0, kvh), p.v_strides.row, n, dv,
              tiles.v_rows, dv);

    // S^T (n, lanes) = K (n, D) · Q^T (D, lanes); P^T = 2^(t - lse).
    tile_gemm<false>(n, d, {tiles.k_rows, d, 1}, tiles.q_t, kTileLanes, tiles.p_t, kTileLanes);
    for (int r = 0; r < n; ++r) {
      const std::int64_t j = j0 + r;
      float* row = tiles.p_t + r * kTileLanes;
      float* dtanh_row = math.softcap ? tiles.dtanh + r * kTileLanes : nullptr;
      math.apply(row, i0 + window.offset() - j, +1, window.query_lanes(j, i0, rows), dtanh_row);
      for (int v = 0; v < kTileVecs; ++v) {
        store(row + v * kVecLanes, exp2(load(row + v * kVecLanes) - load(reference_lanes + v * kVecLanes)));
      }
    }
    // dP^T (n, lanes) = V (n, Dv) · dO^T (Dv, lanes); dS^T in place.
    tile_gemm<false>(n, dv, {tiles.v_rows, dv, 1}, tiles.do_t, kTileLanes, tiles.dp_t, kTileLanes);
    for (int r = 0; r < n; ++r) {
      delta_scores_row(tiles.p_t + r * kTileLanes, tiles.dp_t + r * kTileLanes, d_lanes,
                       math.softcap ? tiles.dtanh + r * kTileLanes : nullptr);
    }
    // dQ^T (D, lanes) += K^T (D, n) · dS^T (n, lanes).
    tile_gemm<true>(d, n, {tiles.k_rows, 1, d}, tiles.dp_t, kTileLanes, tiles.dq_t, kTileLanes);
  }

  alignas(64) float scale[kTileLanes];
  std::fill_n(scale, kTileLanes, p.scale);
  store_transposed(tiles.dq_t, scale, rows, d, row_pointer<T>(p.dq, p.dq_strides, b, q_start, i0, h),
                   p.dq_strides.row);
}

/// Varlen with seqused_k: key rows [seqused_k[b], cu_seqlens_k[b + 1] - cu_seqlens_k[b]) belong to the
/// sequence but no query reads them; their dk and dv are zero.
template <class T>
void zero_unused_keys(const BackwardParams& p) {
  if (!p.seqused_k) return;
  for (int b = 0; b < p.batch; ++b) {
    const std::int64_t used = p.seqlen_k(b);
    const std::int64_t rows = p.cu_seqlens_k[b + 1] - p.cu_seqlens_k[b] - used;
    for (int kvh = 0; kvh < p.heads_kv; ++kvh) {
      for (std::int64_t r = 0; r < rows; ++r) {
        store_zeros(1, p.head_dim, row_pointer<T>(p.dk, p.dk_strides, b, p.k_start(b), used + r, kvh), 0);
        store_zeros(1, p.head_dim_v, row_pointer<T>(p.dv, p.dv_strides, b, p.k_start(b), used + r, kvh), 0);
      }
    }
  }
}

template <class T>
Status run_backward(const BackwardParams& p, int threads) {
  int longest_q = 0;
  int longest_k = 0;
  for (int b = 0; b < p.batch; ++b) {
    longest_q = std::max(longest_q, p.seqlen_q(b));
    longest_k = std::max(longest_k, p.seqlen_k(b));
  }
  const WorkGrid key_grid(p.batch, p.heads_kv, longest_k);
  const WorkGrid query_grid(p.batch, p.heads, longest_q);

  std::vector<Scratch> key_scratch;
  std::vector<Scratch> query_scratch;
  for (int t = 0; t < threads; ++t) {
    key_scratch.push_back(KeyPassTiles::allocate(p));
    query_scratch.push_back(QueryPassTiles::allocate(p));
    if (!key_scratch.back().ok() || !query_scratch.back().ok()) {
      return {StatusCode::internal, "cpu backward: scratch allocation failed"};
    }
  }
#pragma omp parallel num_threads(threads)
  {
    const int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t index = 0; index < key_grid.size(); ++index) {
      key_pass_item<T>(p, key_grid[index], KeyPassTiles(key_scratch[thread]));
    }
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t index = 0; index < query_grid.size(); ++index) {
      query_pass_item<T>(p, query_grid[index], QueryPassTiles(query_scratch[thread]));
    }
  }
  zero_unused_keys<T>(p);
  return Status::success();
}

}  // namespace

Status backward(const BackwardParams& params, int num_threads, RunInfo& info) {
  const int threads = resolve_threads(num_threads);
  const Status status = with_element_type(
      params.dtype, [&](auto element) { return run_backward<decltype(element)>(params, threads); });
  if (!status.ok()) return status;
  info.backend = Backend::cpu;
  info.kernel = std::string("bwd_cpu_") + to_string(params.dtype);
  info.block_m = kTileLanes;
  info.block_n = kBlockInner;
  info.num_threads = threads;
  info.launched = true;
  return status;
}

}  // namespace flashattn::cpu
