// flashattn — the Hopper backward's device parameters: the portable backward's kernel constants and
// workspace plus the TMA tensor maps of Q, dO, K and V, encoded once on the host and passed by value as a
// __grid_constant__ struct.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

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
  typename Layouts::GmemShape shape_q;  ///< (rows, head dim, heads, batch) of q and dout.
  typename Layouts::GmemShape shape_k;  ///< (rows, head dim, heads_kv, batch) of k and v.
};

/// Host: the device parameters of `base` (validated; at least one key block). `args` gives the row extents
/// of varlen tensors (total_q, total_k).
template <class Element, int kHeadDim>
BwdParamsSm90<Element, kHeadDim> make_bwd_params_sm90(const BwdKernelParams& base,
                                                      const AttentionArgs& args) {
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
  return {base,
          make_tma_copy(SM90_TMA_LOAD{}, q_tensor, q_box),
          make_tma_copy(SM90_TMA_LOAD{}, do_tensor, q_box),
          make_tma_copy(SM90_TMA_LOAD{}, k_tensor, typename Layouts::SmemLayoutK{}),
          make_tma_copy(SM90_TMA_LOAD{}, v_tensor, typename Layouts::SmemLayoutK{}),
          shape_q,
          shape_k};
}

}  // namespace flashattn::cuda::sm90
