// flashattn — CPU backward: one main pass over (b, kv head, key tiles) that computes dQ, dK and dV
// together, plus postprocesses that sum partials when the work was split (backward_plan.hpp).
//   main  item = (b, kv head, head split, key chunk); keys are the lanes. For each query head of the
//         item, its Q and dO rows are packed as fp32 with D_i = rowsum(dO_i ∘ O_i) and the lse reference
//         of every row; then, for each key tile of the item (K^T, V^T transposed and K packed) and every
//         64-row query block that sees the keys, P = 2^(t - lse) is recomputed and
//           S = Q · K^T,  dV^T += dO^T · P,  dP = dO · V^T,  dS = P ∘ (dP - D) [∘ (1 - tanh^2)],
//           dK^T += Q^T · dS,  dQ += dS · K.
//         dQ of the head is complete (or its chunk's partial is) when the key tiles are done; dK and dV
//         of the item's tiles (or its split's partials) when the heads are done.
//   postprocess  dQ = scale * sum of the chunk partials; dK = scale * sum, dV = sum of the split partials.
// Every output element has exactly one writer and every sum a fixed order, so the gradients are bitwise
// identical across reruns and thread counts. A row with lse = -inf (no key kept) gets P = 0 and
// therefore zero gradients.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cpu/backward_plan.hpp"
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

// Query rows per inner step of the main pass; with D = Dv = 128 the step's Q, dO, dQ, P, dP rows and the
// key tile's K^T, V^T, K, dK^T, dV^T are 10 x 32 KiB, resident in the 1 MiB L2.
constexpr int kBlockInner = 64;

/// dS = P ∘ (dP - D) [∘ (1 - tanh^2)] for one lane-tile row, in place in dp_row.
inline void delta_scores_row(const float* p_row, float* dp_row, float d_sum, const float* dtanh_row) {
  const Vec d = splat(d_sum);
  for (int v = 0; v < kTileVecs; ++v) {
    Vec ds = load(p_row + v * kVecLanes) * (load(dp_row + v * kVecLanes) - d);
    if (dtanh_row) ds *= load(dtanh_row + v * kVecLanes);
    store(dp_row + v * kVecLanes, ds);
  }
}

/// Per-thread buffers of the main pass: tiles, the item's dK/dV accumulators and one head's packed rows.
struct MainTiles {
  float* k_t;        // (D, lanes)
  float* v_t;        // (Dv, lanes)
  float* k_rows;     // (lanes, dq_ld) K packed row-major; columns >= D stay 0 (never written)
  float* p_tile;     // (kBlockInner, lanes) scores, then P
  float* dp_tile;    // (kBlockInner, lanes) dP, then dS
  float* dtanh;      // (kBlockInner, lanes) softcap derivative
  float* dk_acc;     // item tiles x (D, lanes)  dK^T of each key tile of the item
  float* dv_acc;     // item tiles x (Dv, lanes)
  float* q_rows;     // (Sq, D)   the current head's queries, fp32, contiguous
  float* do_rows;    // (Sq, Dv)  its output gradients
  float* d_sum;      // (Sq)      D_i = rowsum(dO_i ∘ O_i)
  float* reference;  // (Sq)      lse_i * log2(e), or +inf for a row with no key (so that P = 0 exactly)
  float* dq_acc;     // (Sq, dq_ld) dQ of the current head; only with one chunk (else the chunk partials)

  static Scratch allocate(const BackwardParams& p, const BackwardPlan& plan, std::int64_t key_tiles,
                          std::int64_t longest_q) {
    const std::size_t lanes = kTileLanes, d = p.head_dim, dv = p.head_dim_v, sq = longest_q;
    const std::size_t item_tiles = (key_tiles + plan.chunks - 1) / plan.chunks;
    return Scratch({d * lanes, dv * lanes, lanes * plan.dq_ld, kBlockInner * lanes, kBlockInner * lanes,
                    kBlockInner * lanes, item_tiles * d * lanes, item_tiles * dv * lanes, sq * d, sq * dv, sq,
                    sq, plan.chunks == 1 ? sq * plan.dq_ld : 0});
  }
  explicit MainTiles(const Scratch& s)
      : k_t(s.tile(0)),
        v_t(s.tile(1)),
        k_rows(s.tile(2)),
        p_tile(s.tile(3)),
        dp_tile(s.tile(4)),
        dtanh(s.tile(5)),
        dk_acc(s.tile(6)),
        dv_acc(s.tile(7)),
        q_rows(s.tile(8)),
        do_rows(s.tile(9)),
        d_sum(s.tile(10)),
        reference(s.tile(11)),
        dq_acc(s.tile(12)) {}
};

/// Packs rows [0, sq) of head h of sequence b into tiles.q_rows / do_rows with their statistics. The
/// caller's rows are a token (H * D elements, often a page) apart and possibly 16-bit; every key tile
/// streams all of them, so they are widened once into contiguous rows the prefetchers follow.
template <class T>
void pack_head_rows(const BackwardParams& p, int b, int h, std::int64_t sq, const MainTiles& tiles) {
  const int d = p.head_dim;
  const int dv = p.head_dim_v;
  const std::int64_t q_start = p.q_start(b);
  const int rows = static_cast<int>(sq);
  load_rows(row_pointer<const T>(p.q, p.q_strides, b, q_start, 0, h), p.q_strides.row, rows, d, tiles.q_rows,
            d);
  load_rows(row_pointer<const T>(p.dout, p.dout_strides, b, q_start, 0, h), p.dout_strides.row, rows, dv,
            tiles.do_rows, dv);
  const float* lse = p.lse + b * p.lse_batch_stride + h * p.lse_head_stride + q_start;
  for (int r = 0; r < rows; ++r) {
    const T* out = row_pointer<const T>(p.out, p.out_strides, b, q_start, r, h);
    const float* d_out = tiles.do_rows + std::int64_t{r} * dv;
    float dot = 0.0f;
    for (int c = 0; c < dv; ++c) dot += d_out[c] * to_float(out[c]);
    tiles.d_sum[r] = dot;
    tiles.reference[r] = lse[r] == kNegInf ? std::numeric_limits<float>::infinity() : lse[r] * kLog2e;
  }
}

/// Items (b, kv head, head split, key chunk) of the main pass.
struct MainGrid {
  int batch;
  int heads_kv;
  BackwardPlan plan;
  std::int64_t size() const { return std::int64_t{batch} * heads_kv * plan.head_splits * plan.chunks; }
  struct Item {
    int b;
    int kv_head;
    int split;
    int chunk;
  };
  Item operator[](std::int64_t index) const {
    const int chunk = static_cast<int>(index % plan.chunks);
    index /= plan.chunks;
    const int split = static_cast<int>(index % plan.head_splits);
    index /= plan.head_splits;
    return {static_cast<int>(index / heads_kv), static_cast<int>(index % heads_kv), split, chunk};
  }
};

/// Key tile [j0, j0 + keys) of (b, kv head of h) against every query block of head h that sees it:
/// accumulates into dk_t, dv_t (transposed tiles) and the dQ rows `dq` (row i at dq + i * dq_ld).
template <class T>
void key_tile(const BackwardParams& p, const BackwardPlan& plan, int b, int h, std::int64_t j0, int keys,
              float* dk_t, float* dv_t, float* dq, const MainTiles& tiles) {
  const int kvh = p.kv_head(h);
  const int d = p.head_dim;
  const int dv = p.head_dim_v;
  const int dq_ld = plan.dq_ld;
  const std::int64_t k_start = p.k_start(b);
  const SequenceWindow window(p.seqlen_q(b), p.seqlen_k(b), p.window_left, p.window_right);
  const IndexRange queries = window.queries_of({j0, j0 + keys});
  if (queries.empty()) return;
  const ScoreMath math(p, b, h);

  const T* k = row_pointer<const T>(p.k, p.k_strides, b, k_start, j0, kvh);
  load_transposed(k, p.k_strides.row, keys, d, tiles.k_t);
  load_rows(k, p.k_strides.row, keys, d, tiles.k_rows, dq_ld);
  load_transposed(row_pointer<const T>(p.v, p.v_strides, b, k_start, j0, kvh), p.v_strides.row, keys, dv,
                  tiles.v_t);

  for (std::int64_t i0 = queries.begin; i0 < queries.end; i0 += kBlockInner) {
    const int m = static_cast<int>(std::min<std::int64_t>(kBlockInner, queries.end - i0));
    const float* q = tiles.q_rows + i0 * d;        // (m, D)
    const float* d_out = tiles.do_rows + i0 * dv;  // (m, Dv)

    // S (m, lanes) = Q (m, D) · K^T (D, lanes); P = 2^(t - lse) row by row.
    tile_gemm<false>(m, d, {q, d, 1}, tiles.k_t, kTileLanes, tiles.p_tile, kTileLanes);
    for (int r = 0; r < m; ++r) {
      const std::int64_t i = i0 + r;
      float* row = tiles.p_tile + r * kTileLanes;
      float* dtanh_row = math.softcap ? tiles.dtanh + r * kTileLanes : nullptr;
      math.apply(row, i + window.offset() - j0, -1, window.key_lanes(i, j0, keys), dtanh_row);
      const Vec reference = splat(tiles.reference[i]);
      for (int v = 0; v < kTileVecs; ++v) {
        store(row + v * kVecLanes, exp2(load(row + v * kVecLanes) - reference));
      }
    }

    // dV^T (Dv, lanes) += dO^T (Dv, m) · P (m, lanes).
    tile_gemm<true>(dv, m, {d_out, 1, dv}, tiles.p_tile, kTileLanes, dv_t, kTileLanes);
    // dP (m, lanes) = dO (m, Dv) · V^T (Dv, lanes); dS in place.
    tile_gemm<false>(m, dv, {d_out, dv, 1}, tiles.v_t, kTileLanes, tiles.dp_tile, kTileLanes);
    for (int r = 0; r < m; ++r) {
      delta_scores_row(tiles.p_tile + r * kTileLanes, tiles.dp_tile + r * kTileLanes, tiles.d_sum[i0 + r],
                       math.softcap ? tiles.dtanh + r * kTileLanes : nullptr);
    }
    // dK^T (D, lanes) += Q^T (D, m) · dS (m, lanes).
    tile_gemm<true>(d, m, {q, 1, d}, tiles.dp_tile, kTileLanes, dk_t, kTileLanes);
    // dQ (m, dq_ld) += dS (m, keys) · K (keys, dq_ld), one lane tile of columns at a time.
    float* dq_block = dq + i0 * dq_ld;
    for (int c0 = 0; c0 < dq_ld; c0 += kTileLanes) {
      tile_gemm<true>(m, keys, {tiles.dp_tile, kTileLanes, 1}, tiles.k_rows + c0, dq_ld, dq_block + c0,
                      dq_ld);
    }
  }
}

/// Writes rows [0, rows) of the fp32 accumulator `src` (leading dimension src_ld) times `scale`.
template <class T>
void store_scaled_rows(const float* src, std::int64_t src_ld, int rows, int cols, float scale, T* dst,
                       std::int64_t dst_row_stride) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) dst[r * dst_row_stride + c] = from_float<T>(src[r * src_ld + c] * scale);
  }
}

/// Partial sums of the split work (empty when the plan has one split / one chunk).
struct Partials {
  PartialRows dq;  // chunks x (H, q tokens, dq_ld)
  PartialRows dk;  // head splits x (Hk, k tokens, D)
  PartialRows dv;  // head splits x (Hk, k tokens, Dv)
  Partials(const BackwardParams& p, const BackwardPlan& plan)
      : dq(plan.chunks, p.heads, p.cu_seqlens_q, p.batch, p.max_seqlen_q, plan.dq_ld),
        dk(plan.head_splits, p.heads_kv, p.cu_seqlens_k, p.batch, p.max_seqlen_k, p.head_dim),
        dv(plan.head_splits, p.heads_kv, p.cu_seqlens_k, p.batch, p.max_seqlen_k, p.head_dim_v) {}
  bool ok() const { return dq.ok() && dk.ok() && dv.ok(); }
};

template <class T>
void main_item(const BackwardParams& p, const BackwardPlan& plan, const MainGrid::Item& item,
               const Partials& partials, const MainTiles& tiles) {
  const int b = item.b;
  const int kvh = item.kv_head;
  const int d = p.head_dim;
  const int dv = p.head_dim_v;
  const std::int64_t sq = p.seqlen_q(b);
  const std::int64_t sk = p.seqlen_k(b);
  const std::int64_t first_key = std::int64_t{item.chunk} * kTileLanes;
  const std::int64_t key_stride = std::int64_t{plan.chunks} * kTileLanes;
  const std::int64_t item_tiles = sk > first_key ? (sk - first_key + key_stride - 1) / key_stride : 0;
  std::fill_n(tiles.dk_acc, item_tiles * d * kTileLanes, 0.0f);
  std::fill_n(tiles.dv_acc, item_tiles * dv * kTileLanes, 0.0f);

  for (int g = plan.first_head(item.split); g < plan.first_head(item.split + 1); ++g) {
    const int h = kvh * plan.group + g;
    pack_head_rows<T>(p, b, h, sq, tiles);
    float* dq = plan.chunks == 1 ? tiles.dq_acc : partials.dq.row(item.chunk, b, h, 0);
    std::fill_n(dq, sq * plan.dq_ld, 0.0f);
    for (std::int64_t t = 0; t < item_tiles; ++t) {
      const std::int64_t j0 = first_key + t * key_stride;
      const int keys = static_cast<int>(std::min<std::int64_t>(kTileLanes, sk - j0));
      key_tile<T>(p, plan, b, h, j0, keys, tiles.dk_acc + t * d * kTileLanes,
                  tiles.dv_acc + t * dv * kTileLanes, dq, tiles);
    }
    if (plan.chunks == 1) {
      store_scaled_rows(dq, plan.dq_ld, static_cast<int>(sq), d, p.scale,
                        row_pointer<T>(p.dq, p.dq_strides, b, p.q_start(b), 0, h), p.dq_strides.row);
    }
  }

  alignas(64) float scale[kTileLanes];
  alignas(64) float one[kTileLanes];
  std::fill_n(scale, kTileLanes, p.scale);
  std::fill_n(one, kTileLanes, 1.0f);
  const std::int64_t k_start = p.k_start(b);
  for (std::int64_t t = 0; t < item_tiles; ++t) {
    const std::int64_t j0 = first_key + t * key_stride;
    const int keys = static_cast<int>(std::min<std::int64_t>(kTileLanes, sk - j0));
    const float* dk_t = tiles.dk_acc + t * d * kTileLanes;
    const float* dv_t = tiles.dv_acc + t * dv * kTileLanes;
    if (plan.head_splits == 1) {
      store_transposed(dk_t, scale, keys, d, row_pointer<T>(p.dk, p.dk_strides, b, k_start, j0, kvh),
                       p.dk_strides.row);
      store_transposed(dv_t, one, keys, dv, row_pointer<T>(p.dv, p.dv_strides, b, k_start, j0, kvh),
                       p.dv_strides.row);
    } else {
      store_transposed(dk_t, one, keys, d, partials.dk.row(item.split, b, kvh, j0), d);
      store_transposed(dv_t, one, keys, dv, partials.dv.row(item.split, b, kvh, j0), dv);
    }
  }
}

/// out[c] = round(scale * sum over parts of rows(part)[c]), parts in ascending order, for c < cols.
template <class T>
void sum_parts(const PartialRows& rows, int parts, int b, int head, std::int64_t i, int cols, float scale,
               T* out) {
  float* sum = rows.row(0, b, head, i);
  for (int part = 1; part < parts; ++part) {
    const float* add = rows.row(part, b, head, i);
    for (int c = 0; c < cols; ++c) sum[c] += add[c];
  }
  for (int c = 0; c < cols; ++c) out[c] = from_float<T>(sum[c] * scale);
}

/// Postprocess of query rows [i0, i0 + 64) of (b, h): dQ from the chunk partials.
template <class T>
void postprocess_dq(const BackwardParams& p, const BackwardPlan& plan, const WorkGrid::Item& item,
                    const Partials& partials) {
  const std::int64_t sq = p.seqlen_q(item.b);
  for (std::int64_t i = item.first_row; i < std::min<std::int64_t>(sq, item.first_row + kTileLanes); ++i) {
    sum_parts(partials.dq, plan.chunks, item.b, item.head, i, p.head_dim, p.scale,
              row_pointer<T>(p.dq, p.dq_strides, item.b, p.q_start(item.b), i, item.head));
  }
}
/// Postprocess of keys [j0, j0 + 64) of (b, kv head): dK and dV from the head-split partials.
template <class T>
void postprocess_dkv(const BackwardParams& p, const BackwardPlan& plan, const WorkGrid::Item& item,
                     const Partials& partials) {
  const std::int64_t sk = p.seqlen_k(item.b);
  const std::int64_t k_start = p.k_start(item.b);
  for (std::int64_t j = item.first_row; j < std::min<std::int64_t>(sk, item.first_row + kTileLanes); ++j) {
    sum_parts(partials.dk, plan.head_splits, item.b, item.head, j, p.head_dim, p.scale,
              row_pointer<T>(p.dk, p.dk_strides, item.b, k_start, j, item.head));
    sum_parts(partials.dv, plan.head_splits, item.b, item.head, j, p.head_dim_v, 1.0f,
              row_pointer<T>(p.dv, p.dv_strides, item.b, k_start, j, item.head));
  }
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
  const WorkGrid query_grid(p.batch, p.heads, longest_q);
  const WorkGrid key_grid(p.batch, p.heads_kv, longest_k);
  const BackwardPlan plan(p, key_grid.items_per_head);
  const MainGrid main_grid{p.batch, p.heads_kv, plan};
  const Partials partials(p, plan);
  if (!partials.ok()) return {StatusCode::internal, "cpu backward: partial sums allocation failed"};

  std::vector<Scratch> scratch;
  for (int t = 0; t < threads; ++t) {
    scratch.push_back(MainTiles::allocate(p, plan, key_grid.items_per_head, longest_q));
    if (!scratch.back().ok()) return {StatusCode::internal, "cpu backward: scratch allocation failed"};
  }
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t index = 0; index < main_grid.size(); ++index) {
      main_item<T>(p, plan, main_grid[index], partials, MainTiles(scratch[omp_get_thread_num()]));
    }
    if (plan.chunks > 1) {
#pragma omp for schedule(dynamic, 1) nowait
      for (std::int64_t index = 0; index < query_grid.size(); ++index) {
        postprocess_dq<T>(p, plan, query_grid[index], partials);
      }
    }
    if (plan.head_splits > 1) {
#pragma omp for schedule(dynamic, 1) nowait
      for (std::int64_t index = 0; index < key_grid.size(); ++index) {
        postprocess_dkv<T>(p, plan, key_grid[index], partials);
      }
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
  info.block_m = kBlockInner;
  info.block_n = kTileLanes;
  info.num_threads = threads;
  info.launched = true;
  return status;
}

}  // namespace flashattn::cpu
