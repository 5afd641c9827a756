// flashattn — the main loop of the Hopper forward kernel for one block of query rows.
//
// Producer (one thread of the producer warpgroup): TMA-loads Q once (its own transaction barrier), then
// the K and V tiles of every key tile the block keeps, into rings of kStages shared-memory stages guarded
// by CUTLASS PipelineTmaAsync full/empty mbarriers (full: the TMA's bytes landed; empty: every consumer
// thread is done reading the stage).
// Consumers (each warpgroup 64 query rows): per key tile, S = Q·Kᵀ by wgmma from shared memory, the mask
// and score mods, the online softmax (exp2), P rounded to the element type in registers, and O += P·V by
// wgmma with P from registers. Each stage is released as soon as its last reader finished.
//
// Key tiles are visited from the last to the first, as in the portable kernel: the partial sequence-end
// tile and the causal diagonal come first, and only the tiles that cross a row's key interval (or every
// tile when softcap or ALiBi is on) pay for masking.
//
// Both consumer warpgroups step through the same key tiles, so they share every stage. The steps run one
// after the other for now; intra-warpgroup overlap (issue S of tile n-1 before the softmax of tile n) and
// ping-pong between the warpgroups (named barriers in primitives_sm90.cuh) slot into `consume`.
#pragma once

#include <cmath>
#include <cstdint>

#include <cutlass/arch/barrier.h>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/common/fragment.cuh"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/common/mask.cuh"
#include "cuda/common/score_mods.cuh"
#include "cuda/common/softmax.cuh"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/params_fwd_sm90.cuh"
#include "cuda/sm90/primitives_sm90.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
struct FwdMainloopSm90 {
  using Layouts = FwdLayoutsSm90<Element, kHeadDim>;
  using Params = FwdParamsSm90<Element, kHeadDim>;
  using Pipeline = typename Layouts::Pipeline;
  using PipelineState = typename Pipeline::PipelineState;
  static constexpr int kBlockM = Layouts::kBlockM;
  static constexpr int kBlockN = Layouts::kBlockN;
  static constexpr int kConsumerThreads = Layouts::kConsumerThreads;
  /// Accumulator rows per thread: a thread holds rows r and r + 8 of its warp's 16.
  static constexpr int kRowsPerThread = 2;
  using Softmax = OnlineSoftmax<kRowsPerThread>;

  /// What the block computes, shared by the producer and the consumers.
  struct Work {
    int row0;      ///< First query row of the block within its sequence.
    int q_rows;    ///< Valid query rows of the block (< BLOCK_M at the sequence end).
    int seqlen_k;  ///< Keys attended by the sequence.
    int n_begin;   ///< Key tiles [n_begin, n_end) hold every key some row of the block keeps.
    int n_end;
    std::int64_t q_row_offset;  ///< Row of the sequence's first token in the TMA view of q (varlen).
    std::int64_t k_row_offset;  ///< Row of the sequence's first key in the TMA views of k and v.
    int tma_batch;              ///< Batch coordinate of the TMA views (0 for varlen).
    int head;
    int head_kv;
    float slope_log2;  ///< ALiBi slope * log2(e) of this (batch, head); unused without ALiBi.
    __device__ bool has_keys() const { return n_end > n_begin; }
  };

  /// Producer: issues every TMA load of the block. Called by one thread.
  __device__ static void load(const Params& params, typename Layouts::SharedStorage& smem,
                              Pipeline& pipeline_k, Pipeline& pipeline_v, PipelineState& write,
                              const Work& work) {
    using namespace cute;
    if (!work.has_keys()) return;  // nothing to read; the consumers never wait for Q either
    Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});
    Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});
    Tensor sVt = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutVt{});

    // Coordinate tensors of the TMA views, narrowed to this (head, batch) and sequence.
    Tensor mQ = domain_offset(make_coord(static_cast<int>(work.q_row_offset), _0{}),
                              params.tma_q.get_tma_tensor(params.shape_q)(_, _, work.head, work.tma_batch));
    Tensor mK =
        domain_offset(make_coord(static_cast<int>(work.k_row_offset), _0{}),
                      params.tma_k.get_tma_tensor(params.shape_k)(_, _, work.head_kv, work.tma_batch));
    Tensor mVt =
        domain_offset(make_coord(_0{}, static_cast<int>(work.k_row_offset)),
                      params.tma_v.get_tma_tensor(params.shape_vt)(_, _, work.head_kv, work.tma_batch));
    Tensor gQ = local_tile(mQ, Shape<Int<kBlockM>, Int<kHeadDim>>{},
                           make_coord(work.row0 / kBlockM, _0{}));  // (BLOCK_M, HEAD_DIM)
    Tensor gK =
        local_tile(mK, Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_coord(_, _0{}));  // (BLOCK_N, HEAD_DIM, n)
    Tensor gVt =
        local_tile(mVt, Shape<Int<kHeadDim>, Int<kBlockN>>{}, make_coord(_0{}, _));  // (HEAD_DIM, BLOCK_N, n)

    auto [tQgQ, tQsQ] = tma_partition(params.tma_q, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sQ),
                                      group_modes<0, 2>(gQ));  // (TMA), (TMA)
    auto [tKgK, tKsK] = tma_partition(params.tma_k, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sK),
                                      group_modes<0, 2>(gK));  // (TMA, n), (TMA, PIPE)
    auto [tVgV, tVsV] = tma_partition(params.tma_v, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sVt),
                                      group_modes<0, 2>(gVt));  // (TMA, n), (TMA, PIPE)

    using BarrierValue = cutlass::arch::ClusterTransactionBarrier::ValueType;
    smem.barrier_q.arrive_and_expect_tx(Layouts::kTmaBytesQ);
    copy(params.tma_q.with(reinterpret_cast<BarrierValue&>(smem.barrier_q)), tQgQ, tQsQ);
    for (int n = work.n_end - 1; n >= work.n_begin; --n) {
      pipeline_k.producer_acquire(write);
      copy(params.tma_k.with(*pipeline_k.producer_get_barrier(write)), tKgK(_, n), tKsK(_, write.index()));
      pipeline_v.producer_acquire(write);
      copy(params.tma_v.with(*pipeline_v.producer_get_barrier(write)), tVgV(_, n), tVsV(_, write.index()));
      ++write;
    }
  }

  /// Consumers: accumulates O (this warpgroup's 64 rows x HEAD_DIM, fp32, unnormalised) and the softmax
  /// state over the block's key tiles. `thread` is the index among the consumer threads.
  template <class AccO>
  __device__ static void consume(const Params& params, typename Layouts::SharedStorage& smem,
                                 Pipeline& pipeline_k, Pipeline& pipeline_v, PipelineState& read,
                                 const Work& work, const KeyRange& range, int thread, AccO& tOrO,
                                 Softmax& softmax) {
    using namespace cute;
    if (!work.has_keys()) return;
    Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});
    Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});
    Tensor sVt = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutVt{});

    typename Layouts::TiledMmaQK mma_qk;
    typename Layouts::TiledMmaPV mma_pv;
    auto thr_qk = mma_qk.get_thread_slice(thread);
    auto thr_pv = mma_pv.get_thread_slice(thread);
    Tensor tSrQ = thr_qk.partition_fragment_A(sQ);   // (MMA, MMA_M, MMA_K) descriptors
    Tensor tSrK = thr_qk.partition_fragment_B(sK);   // (MMA, MMA_N, MMA_K, PIPE) descriptors
    Tensor tOrV = thr_pv.partition_fragment_B(sVt);  // (MMA, MMA_N, MMA_K, PIPE) descriptors
    // (row, col) within the block of each score this thread holds, as a (rows, cols) view.
    Tensor tScS = thr_qk.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kBlockN>>{}));
    Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));  // (ROWS, COLS)
    Tensor tOrO_rc = gmma_acc_rowcol(tOrO);                                            // (ROWS, HEAD_DIM)

    smem.barrier_q.wait(0);

    // Tiles n >= n_right cross the first row's key_end; tiles n < n_left cross the last row's key_begin;
    // the tiles between are kept whole by every row of the block and skip the mask.
    const int n_right = range.key_end(work.row0) / kBlockN;
    const int n_left = (range.key_begin(work.row0 + kBlockM - 1) + kBlockN - 1) / kBlockN;
    CUTE_NO_UNROLL
    for (int n = work.n_end - 1; n >= work.n_begin; --n) {
      const bool masked = params.base.score_mods || n >= n_right || n < n_left;
      Tensor tSrS = partition_fragment_C(mma_qk, Shape<Int<kBlockM>, Int<kBlockN>>{});  // (MMA, MMA_M, MMA_N)
      pipeline_k.consumer_wait(read);
      gmma</*kZeroInit=*/true, /*kWait=*/0>(mma_qk, tSrQ, tSrK(_, _, _, read.index()), tSrS);
      pipeline_k.consumer_release(read);

      Tensor scores = make_tensor(tSrS.data(), gmma_acc_rowcol_layout(tSrS.layout()));  // (ROWS, BLOCK_N)
      if (masked) {
        const int col0 = n * kBlockN;
        if (params.base.score_mods) {
          scores_to_log2(params.base, scores);
          if (params.base.has_alibi) {
            mask_scores<true>(scores, tScS_rc, work.row0, col0, range, work.slope_log2);
          } else {
            mask_scores<false>(scores, tScS_rc, work.row0, col0, range, 0.0f);
          }
        } else {
          mask_scores<false>(scores, tScS_rc, work.row0, col0, range, 0.0f);
        }
      }
      softmax.update(scores, tOrO_rc);

      Tensor rP = convert_fragment<Element>(tSrS);
      Tensor tOrP = make_tensor(rP.data(), gmma_acc_as_a_layout(rP.layout()));  // (MMA, MMA_M, MMA_K)
      pipeline_v.consumer_wait(read);
      // Only the first tile visited can hold the sequence end (uniform over the consumers).
      if (params.base.problem.is_varlen() && (n + 1) * kBlockN > work.seqlen_k) {
        zero_key_tail(sVt, read.index(), work.seqlen_k - n * kBlockN, thread);
      }
      gmma</*kZeroInit=*/false, /*kWait=*/0>(mma_pv, tOrP, tOrV(_, _, _, read.index()), tOrO);
      pipeline_v.consumer_release(read);
      ++read;
    }
  }

 private:
  /// Zeroes the V rows of stage `stage` at and past key `valid` of the tile. In a varlen batch those rows
  /// belong to the next sequence, to no sequence (poison) or lie past seqused_k: their p is 0, but 0 * NaN
  /// is NaN in the tensor cores. Only the sequence-end tile needs it. All consumer threads take part.
  template <class SVt>
  __device__ static void zero_key_tail(SVt& sVt, int stage, int valid, int thread) {
    constexpr int kElements = kHeadDim * kBlockN;
    for (int i = thread; i < kElements; i += kConsumerThreads) {
      const int d = i % kHeadDim;
      const int key = i / kHeadDim;
      if (key >= valid) sVt(d, key, stage) = Element(0);
    }
    // Generic-proxy stores read next by wgmma (async proxy): fence, then publish to every consumer.
    cutlass::arch::fence_view_async_shared();
    named_barrier_sync(kConsumerThreads, FwdBarrier::kConsumers);
  }
};

}  // namespace flashattn::cuda::sm90
