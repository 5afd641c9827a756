// flashattn — the Hopper backward's device parameters: the portable backward's kernel constants and
// workspace plus the TMA tensor maps of Q, dO, K, V (loads) and of the fp32 dQ accumulator (reduce-add),
// encoded once on the host and passed by value as a __grid_constant__ struct.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cute/tensor.hpp>

#include "core/heuristics.hpp"
#include "core/params.hpp"
#include "cuda/common/bwd_kernel_params.hpp"
#include "cuda/sm90/layouts_bwd_sm90.cuh"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
struct BwdParamsSm90 {
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  BwdKernelParams base;
  typename Layouts::TmaQ tma_q;
  typename Layouts::TmaQ tma_do;
  typename Layouts::TmaK tma_k;
  typename Layouts::TmaK tma_v;
  typename Layouts::TmadQ tma_dq;
  typename Layouts::GmemShape shape_q;     ///< (rows, head dim, heads, batch) of q and dout.
  typename Layouts::GmemShape shape_k;     ///< (rows, head dim, heads_kv, batch) of k and v.
  typename Layouts::GmemShapedQ shape_dq;  ///< (tokens, head dim, heads) of the dQ accumulator.
  int section_heads;                       ///< Tile order (core::bwd_heads_per_section, BwdTileCoord).
  bool rotated_walk;                       ///< Query block order (core::bwd_rotated_walk).
  bool descending;  ///< Key block order of the CTAs and dQ turns (core::bwd_deterministic_descending).
  /// Work tiles (key block, kv head, batch) of the call, in make_work's order. CTA c of the persistent grid
  /// (one per SM) starts with tile c and takes each next one from the workspace's tile counter.
  int tiles;
};

/// Host: the device parameters of `base` (validated; at least one key block) for `ctas` work tiles on a GPU
/// of `sms` multiprocessors. `args` gives the row extents of varlen tensors (total_q, total_k).
template <class Element, int kHeadDim>
BwdParamsSm90<Element, kHeadDim> make_bwd_params_sm90(const BwdKernelParams& base, const AttentionArgs& args,
                                                      long long ctas, int sms) {
  using namespace cute;
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  const BackwardParams& p = base.problem;
  const bool varlen = p.is_varlen();
  // (rows, head dim, heads, batch): a varlen tensor is one batch of all its rows.
  auto shape_of = [&](std::int64_t rows, int heads) {
    return make_shape(static_cast<std::int32_t>(rows), static_cast<std::int32_t>(p.head_dim),
                      static_cast<std::int32_t>(heads), static_cast<std::int32_t>(varlen ? 1 : p.batch));
  };
  auto tensor_of = [&](const void* data, const OperandStrides& s, const auto& shape) {
    return make_tensor(make_gmem_ptr(static_cast<const Element*>(data)), shape,
                       make_stride(s.row, _1{}, s.head, varlen ? std::int64_t{0} : s.batch));
  };
  const std::int64_t rows_q = varlen ? args.q.shape[0] : p.max_seqlen_q;
  const std::int64_t rows_k = varlen ? args.k.shape[0] : p.max_seqlen_k;
  auto shape_q = shape_of(rows_q, p.heads);
  auto shape_k = shape_of(rows_k, p.heads_kv);
  // A tensor map cannot describe zero rows. With no query row no step runs and Q, dO are never loaded;
  // the maps then describe K's memory instead (and symmetrically), never read.
  const bool no_queries = rows_q == 0;
  if (no_queries) shape_q = shape_k;
  const auto q_tensor = tensor_of(no_queries ? p.k : p.q, no_queries ? p.k_strides : p.q_strides, shape_q);
  const auto do_tensor =
      tensor_of(no_queries ? p.k : p.dout, no_queries ? p.k_strides : p.dout_strides, shape_q);
  const auto k_tensor = tensor_of(p.k, p.k_strides, shape_k);
  const auto v_tensor = tensor_of(p.v, p.v_strides, shape_k);
  const auto q_box = take<0, 2>(typename Layouts::SmemLayoutQ{});
  // dq_accum is (tokens, H, D) row-major (BwdWorkspace); tokens < 2^31, since the accumulator's
  // tokens * H * D * 4 bytes (H * D >= 64) fit in device memory. With no token nothing is added, but the
  // map still needs one row: it then describes the workspace's first bytes, never written.
  const auto shape_dq =
      make_shape(static_cast<std::int32_t>(std::max<std::int64_t>(base.workspace.tokens, 1)),
                 static_cast<std::int32_t>(p.head_dim), static_cast<std::int32_t>(p.heads));
  const auto dq_tensor =
      make_tensor(make_gmem_ptr(base.workspace.dq_accum), shape_dq,
                  make_stride(std::int64_t{p.heads} * p.head_dim, _1{}, std::int64_t{p.head_dim}));
  const bool bounded = p.window_right < kUnboundedWindow;
  const bool descending = core::bwd_deterministic_descending(bounded, p.deterministic);
  // A (batch, kv head) pair's query-side streams, which its key blocks' tiles all read: Q and dO of its
  // query heads, and their fp32 dQ rows, added into in L2 (max_seqlen_q rows: varlen pairs are shorter).
  const long long batch_heads = std::int64_t{p.batch} * p.heads_kv;
  const long long pair_bytes = std::int64_t{p.heads / p.heads_kv} * p.max_seqlen_q * p.head_dim *
                               (2 * static_cast<long long>(sizeof(Element)) + 4);
  // Descending deterministic turns keep one pair's key blocks after another's (their semaphores' order).
  const int section_heads =
      descending ? 1
                 : static_cast<int>(core::bwd_heads_per_section(bounded, batch_heads, ctas, sms, pair_bytes));
  return {base,
          make_tma_copy(SM90_TMA_LOAD{}, q_tensor, q_box),
          make_tma_copy(SM90_TMA_LOAD{}, do_tensor, q_box),
          make_tma_copy(SM90_TMA_LOAD{}, k_tensor, typename Layouts::SmemLayoutK{}),
          make_tma_copy(SM90_TMA_LOAD{}, v_tensor, typename Layouts::SmemLayoutK{}),
          make_tma_copy(SM90_TMA_REDUCE_ADD{}, dq_tensor, typename Layouts::SmemLayoutdQWarpGroup{}),
          shape_q,
          shape_k,
          shape_dq,
          section_heads,
          core::bwd_rotated_walk(bwd_tile_sm90(kHeadDim).rotated_walk, bounded, p.deterministic),
          descending,
          static_cast<int>(ctas)};
}

}  // namespace flashattn::cuda::sm90
