// flashattn — the Hopper forward's device parameters: the portable kernel constants plus the TMA tensor
// maps of Q, K, V (loads) and O (store), encoded once on the host and passed by value as a __grid_constant__
// struct.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

#include "core/fast_divisor.hpp"
#include "core/params.hpp"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/split_tail_sm90.cuh"
#include "cuda/sm90/tile_scheduler_sm90.hpp"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::sm90 {

/// Whether the kernel of head dims (`head_dim`, `head_dim_v`) in `regime` may walk its order's stream (cut
/// tiles): not with GQA packing, whose warpgroups load and store their own rows, nor on a tile no call that
/// cuts runs on (fwd_regime_may_cut_tiles_sm90), whose kernel is then built without that code. The kernel and
/// make_fwd_params_sm90 both ask it, so a kernel built without the code is never given a stream. A cluster
/// pair walks it as one unit, both CTAs the same pieces (they share their K / V loads), each with its own
/// slots.
constexpr bool fwd_split_tail_allowed_sm90(int head_dim, int head_dim_v, FwdTileRegime regime) {
  return !fwd_tile_sm90(head_dim, head_dim_v, regime).pack_gqa &&
         fwd_regime_may_cut_tiles_sm90(head_dim, head_dim_v, regime);
}

template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
struct FwdParamsSm90 {
  using Layouts = FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  FwdKernelParams base;
  typename Layouts::TmaQ tma_q;
  typename Layouts::TmaK tma_k;
  typename Layouts::TmaV tma_v;
  typename Layouts::TmaO tma_o;
  typename Layouts::GmemShape shape_q;   ///< (rows, head dim, heads, batch) of q.
  typename Layouts::GmemShape shape_k;   ///< (rows, head dim, heads_kv, batch) of k.
  typename Layouts::GmemShape shape_vt;  ///< (head dim v, rows, heads_kv, batch) of v.
  typename Layouts::GmemShape shape_o;   ///< (rows, head dim v, heads, batch) of out.
  PersistentTileScheduler::Order order;  ///< The tiles and the order the CTAs walk them in.
  /// heads / heads_kv, the query heads of a kv head. GQA packing (Layouts::kPackGqa) maps packed row r to
  /// token r / group and query head group * head_kv + r % group.
  core::FastDivisor by_group;
  typename Layouts::TmaKMulticast tma_k_mc;  ///< tma_k's boxes, multicast (Layouts::kKvMulticast)
  typename Layouts::TmaVMulticast tma_v_mc;  ///< tma_v's boxes, multicast (Layouts::kKvMulticast)
  FwdPairs pairs;                            ///< What a cluster pair's CTAs split (Layouts::kKvMulticast)
  FwdSplitTailWorkspace split_tail{};        ///< The cut tiles' partials and flags (an order with a stream)
};

/// GQA packing: where packed row `row` of a sequence (token row / group of the group's query head row %
/// group) lies in a tensor whose token 0 of the group's first query head is at `base`.
template <class T>
__device__ __forceinline__ T* packed_row_address(const core::FastDivisor& by_group, T* base,
                                                 std::int64_t row_stride, std::int64_t head_stride, int row) {
  const int token = by_group.div(row);
  return base + token * row_stride + (row - token * by_group.divisor()) * head_stride;
}

namespace detail {

/// (rows, head dim, heads, batch) of one operand: dense tensors span their batch; a varlen tensor is one
/// batch of all its rows (`total_rows`), each sequence reached by a row offset.
inline cute::Shape<std::int32_t, std::int32_t, std::int32_t, std::int32_t> gmem_shape(
    const ForwardParams& params, std::int64_t rows, int head_dim, int heads) {
  return cute::make_shape(static_cast<std::int32_t>(rows), static_cast<std::int32_t>(head_dim),
                          static_cast<std::int32_t>(heads),
                          static_cast<std::int32_t>(params.is_varlen() ? 1 : params.batch));
}

}  // namespace detail

/// Host: the device parameters of `params` (validated; at least one query tile; with cluster pairs,
/// Layouts::kKvMulticast, `pairs` what core::fwd_pairs_sm90 chose, not none)
/// for `units` CTAs or cluster pairs running at once. `args` gives the row extents of varlen tensors
/// (total_q, total_k).
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
FwdParamsSm90<Element, kHeadDim, kHeadDimV, kRegime> make_fwd_params_sm90(const ForwardParams& params,
                                                                          const AttentionArgs& args,
                                                                          int units, FwdPairs pairs) {
  using namespace cute;
  using Layouts = FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  const bool varlen = params.is_varlen();
  const std::int64_t rows_q = varlen ? args.q.shape[0] : params.max_seqlen_q;
  const std::int64_t rows_k = varlen ? args.k.shape[0] : params.max_seqlen_k;
  auto shape_q = detail::gmem_shape(params, rows_q, params.head_dim, params.heads);
  auto shape_k = detail::gmem_shape(params, rows_k, params.head_dim, params.heads_kv);
  auto batch_stride = [varlen](const OperandStrides& s) { return varlen ? std::int64_t{0} : s.batch; };
  auto q_tensor = make_tensor(
      make_gmem_ptr(static_cast<const Element*>(params.q)), shape_q,
      make_stride(params.q_strides.row, _1{}, params.q_strides.head, batch_stride(params.q_strides)));
  // A tensor map cannot describe zero rows: with no key anywhere no key tile is ever loaded, and the maps
  // of K and V describe Q's memory instead, never read (Dv <= D: V's view fits in Q's rows).
  const bool no_keys = rows_k == 0;
  const void* k_data = no_keys ? params.q : params.k;
  const void* v_data = no_keys ? params.q : params.v;
  const OperandStrides& k_strides = no_keys ? params.q_strides : params.k_strides;
  const OperandStrides& v_strides = no_keys ? params.q_strides : params.v_strides;
  if (no_keys) shape_k = shape_q;
  auto k_tensor = make_tensor(make_gmem_ptr(static_cast<const Element*>(k_data)), shape_k,
                              make_stride(k_strides.row, _1{}, k_strides.head, batch_stride(k_strides)));
  auto shape_vt = make_shape(static_cast<std::int32_t>(params.head_dim_v), get<0>(shape_k), get<2>(shape_k),
                             get<3>(shape_k));
  auto shape_o = detail::gmem_shape(params, rows_q, params.head_dim_v, params.heads);
  auto vt_tensor = make_tensor(make_gmem_ptr(static_cast<const Element*>(v_data)), shape_vt,
                               make_stride(_1{}, v_strides.row, v_strides.head, batch_stride(v_strides)));
  auto out_tensor = make_tensor(
      make_gmem_ptr(static_cast<Element*>(params.out)), shape_o,
      make_stride(params.out_strides.row, _1{}, params.out_strides.head, batch_stride(params.out_strides)));
  const FwdKernelParams base = make_fwd_kernel_params(params, Layouts::kBlockM);
  // Cut tiles where every tile walks the same keys: no window or causal mask, one length for every sequence.
  const std::int64_t key_tiles = (params.max_seqlen_k + Layouts::kBlockN - 1) / Layouts::kBlockN;
  const bool equal_tiles = !params.has_window() && !varlen && params.seqused_k == nullptr;
  const int stream_keys = fwd_split_tail_allowed_sm90(kHeadDim, kHeadDimV, kRegime) && equal_tiles &&
                                  core::fwd_split_tail_sm90(params.max_seqlen_k, params.head_dim_v)
                              ? static_cast<int>(key_tiles)
                              : 0;
  // The multicast maps only where a pair loads by them: encoding a tensor map costs host time every call.
  typename Layouts::TmaKMulticast tma_k_mc{};
  typename Layouts::TmaVMulticast tma_v_mc{};
  if constexpr (Layouts::kKvMulticast) {
    tma_k_mc =
        make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, k_tensor, take<0, 2>(typename Layouts::SmemLayoutK{}), _1{});
    tma_v_mc = make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, vt_tensor,
                             take<0, 2>(typename Layouts::SmemLayoutVt{}), _1{});
  }
  return {base,
          make_tma_copy(SM90_TMA_LOAD{}, q_tensor, typename Layouts::SmemLayoutQWarpGroup{}),
          make_tma_copy(SM90_TMA_LOAD{}, k_tensor, take<0, 2>(typename Layouts::SmemLayoutK{})),
          make_tma_copy(SM90_TMA_LOAD{}, vt_tensor, take<0, 2>(typename Layouts::SmemLayoutVt{})),
          make_tma_copy(SM90_TMA_STORE{}, out_tensor, typename Layouts::SmemLayoutOWarpGroup{}),
          shape_q,
          shape_k,
          shape_vt,
          shape_o,
          PersistentTileScheduler::order(
              fwd_scheduled_params(base, Layouts::kPackGqa, Layouts::kBlockM, Layouts::kClusterSize, pairs),
              units, stream_keys),
          core::FastDivisor(params.heads / params.heads_kv),
          tma_k_mc,
          tma_v_mc,
          pairs};
}

}  // namespace flashattn::cuda::sm90
