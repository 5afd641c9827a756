// flashattn — the main loop of the Hopper forward kernel for one block of query rows.
//
// Producer (one thread of the producer warpgroup): TMA-loads Q once (its own transaction barrier), then
// the K and V tiles of every key tile the block keeps, into rings of kStagesK and kStagesV shared-memory
// stages guarded by CUTLASS PipelineTmaAsync full/empty mbarriers (full: the TMA's bytes landed; empty: every
// consumer thread is done reading the stage). Consumers (each warpgroup 64 query rows): per key tile, S =
// Q·Kᵀ by wgmma from shared memory, the mask and score mods, the online softmax (exp2), P rounded to the
// element type in registers, and O += P·V by wgmma with P from registers. Each stage is released as soon as
// its last reader finished.
//
// Key tiles are visited from the last to the first, as in the portable kernel: the partial sequence-end
// tile and the causal diagonal come first, and only the tiles that cross a row's key interval (or every
// tile when softmax score mods are on) pay for masking.
//
// Two overlaps keep the tensor cores busy while the softmax runs on the CUDA cores (FlashAttention-3):
//  - intra-warpgroup: step n issues S_n = Q·K_nᵀ and O += P_{n+1}·V_{n+1} together, then runs the softmax
//    of S_n while the P·V product is still executing; O is rescaled for S_n's maxima at the next step,
//    before its P·V is issued. The producer therefore loads K one tile ahead of V.
//  - ping-pong: the two consumer warpgroups take turns issuing their step's wgmmas (named barriers), so
//    one warpgroup's softmax runs under the other's products.
// Both consumer warpgroups step through the same key tiles, so they share every stage.
#pragma once

#include <cmath>
#include <cstdint>

#include <cutlass/arch/barrier.h>
#include <cute/arch/cluster_sm90.hpp>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "core/fast_divisor.hpp"
#include "cuda/common/block_info.cuh"
#include "cuda/common/fragment.cuh"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/common/mask.cuh"
#include "cuda/common/score_mods.cuh"
#include "cuda/common/softmax.cuh"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/params_fwd_sm90.cuh"
#include "cuda/sm90/primitives_sm90.cuh"
#include "cuda/sm90/tile_scheduler_sm90.hpp"
#include "cuda/sm90/work_fwd_sm90.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
struct FwdMainloopSm90 {
  using Layouts = FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  using Params = FwdParamsSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  using PipelineK = typename Layouts::PipelineK;
  using PipelineV = typename Layouts::PipelineV;
  using StateK = typename PipelineK::PipelineState;
  using StateV = typename PipelineV::PipelineState;
  static constexpr int kBlockM = Layouts::kBlockM;
  static constexpr int kBlockN = Layouts::kBlockN;
  static constexpr int kConsumerThreads = Layouts::kConsumerThreads;
  /// Accumulator rows per thread: a thread holds rows r and r + 8 of its warp's 16.
  static constexpr int kRowsPerThread = 2;
  using Softmax = OnlineSoftmax<kRowsPerThread, Layouts::kTile.exp2_on_fma_period>;

  /// What the block computes, shared by the producer and the consumers.
  using Work = FwdWorkSm90;

  /// GQA packing: the token of packed row `row`; without, the row itself.
  struct RowToken {
    core::FastDivisor by_group;
    __device__ __forceinline__ int operator()(int row) const {
      if constexpr (Layouts::kPackGqa) {
        return by_group.div(row);
      } else {
        return row;
      }
    }
  };

  /// The work of `tile` (m_block, head, batch), or nothing when the block starts past its sequence's end
  /// (varlen: the sequence is shorter than the longest). With GQA packing the tile's head is a kv head.
  /// Computed by the producer thread alone, which hands it to the consumers (WorkRingSm90).
  __device__ static bool make_work(const Params& params, const PersistentTileScheduler::Tile& tile,
                                   Work& work) {
    const ForwardParams& p = params.base.problem;
    const int group = Layouts::kPackGqa ? params.by_group.divisor() : 1;
    const BlockInfo info(p, tile.batch, tile.head * group);
    // The launcher keeps max_seqlen_q * group + BLOCK_M within an int.
    const int rows = info.seqlen_q * group;
    const int row0 = tile.m_block * kBlockM;
    if (row0 >= rows) return false;
    const KeyRange range(p, info.seqlen_q, info.seqlen_k);
    const RowToken token{params.by_group};
    const int q_rows = min(kBlockM, rows - row0);
    // Row intervals grow with the row (and the token), so the block needs keys [begin(first row),
    // end(last row)).
    work.row0 = row0;
    work.q_rows = q_rows;
    work.seqlen_q = info.seqlen_q;
    work.seqlen_k = info.seqlen_k;
    work.n_begin = range.key_begin(token(row0)) / kBlockN;
    work.n_end = (range.key_end(token(row0 + q_rows - 1)) + kBlockN - 1) / kBlockN;
    // Tiles n >= n_right cross the first row's key_end; tiles n < n_left cross the key_begin of the block's
    // last row (valid or not: a later row only masks more tiles).
    work.n_right = range.key_end(token(row0)) / kBlockN;
    work.n_left = (range.key_begin(token(row0 + kBlockM - 1)) + kBlockN - 1) / kBlockN;
    work.tma_batch = p.is_varlen() ? 0 : info.batch;
    work.head = info.head;
    work.head_kv = info.head_kv;
    // ALiBi's slope is a query head's: packed rows of several heads would need one per row, so the launcher
    // never packs a call with ALiBi.
    work.slope_log2 = params.base.has_alibi && !Layouts::kPackGqa
                          ? p.alibi_slopes[info.batch * p.alibi_batch_stride + info.head] * kLog2e
                          : 0.0f;
    work.q_row_offset = p.q_start(info.batch);
    work.k_row_offset = p.k_start(info.batch);
    const int first_row = Layouts::kPackGqa ? 0 : row0;
    work.out_offset = info.out_offset(p, first_row);
    work.lse_offset = info.lse_offset(p, first_row);
    work.partial_role = PersistentTileScheduler::kWholeTile;
    work.partial_slot = 0;
    return true;
  }

  /// GQA packing, consumers: warpgroup `warp_group` writes its 64 rows of the block's Q into its block of
  /// the Q buffer (rows past the block's valid ones as zeros, never read from global memory), 16-byte vectors
  /// in the swizzled layout wgmma reads, then publishes them to its own Q·Kᵀ (the async proxy). Called by
  /// the warpgroup's 128 threads; the block's previous readers (the last tile's Q·Kᵀ, completed, and its
  /// epilogue's reads of the O staged there) are done once all of them got here.
  __device__ static void load_q_packed(const Params& params, typename Layouts::SharedStorage& smem,
                                       const Work& work, int warp_group) {
    using namespace cute;
    static_assert(Layouts::kPackGqa && Layouts::kQStages == 1);
    const ForwardParams& p = params.base.problem;
    constexpr int kChunksPerRow = kHeadDim / 8;  // 16-byte chunks
    constexpr int kChunksPerThread = 64 * kChunksPerRow / 128;
    static_assert(64 * kChunksPerRow % 128 == 0, "the warpgroup's 128 threads share its rows' chunks evenly");
    named_barrier_sync(128, FwdBarrier::kWarpGroup, warp_group);  // the block's last readers are done
    Tensor sQ = make_tensor(
        make_smem_ptr(smem.q[0].data() + warp_group * cosize_v<typename Layouts::SmemLayoutQWarpGroup>),
        typename Layouts::SmemLayoutQWarpGroup{});  // (64, HEAD_DIM)
    const Element* q = static_cast<const Element*>(p.q) + work.tma_batch * p.q_strides.batch +
                       work.q_row_offset * p.q_strides.row + work.head * p.q_strides.head;
    // The thread index read here: addresses derived from `thread` would be hoisted out of the tile loop and
    // held through it (spilled: 116 bytes at D = 128).
    const int lane = (thread_index_in_loop() - 128) % 128;
    // All loads first, then all stores: every chunk's latency overlaps the others'.
    uint4 chunks[kChunksPerThread];
    CUTE_UNROLL
    for (int i = 0; i < kChunksPerThread; ++i) {
      const int chunk = lane + 128 * i;
      const int block_row = 64 * warp_group + chunk / kChunksPerRow;
      chunks[i] = make_uint4(0, 0, 0, 0);
      if (block_row < work.q_rows) {
        const Element* src =
            packed_row_address(params.by_group, q, p.q_strides.row, p.q_strides.head, work.row0 + block_row) +
            chunk % kChunksPerRow * 8;
        chunks[i] = *reinterpret_cast<const uint4*>(src);
      }
    }
    CUTE_UNROLL
    for (int i = 0; i < kChunksPerThread; ++i) {
      const int chunk = lane + 128 * i;
      store_shared_16_bytes(cast_smem_ptr_to_uint(&sQ(chunk / kChunksPerRow, chunk % kChunksPerRow * 8)),
                            chunks[i]);
    }
    // Generic-proxy stores read next by wgmma (async proxy): fence, then publish to the warpgroup.
    cutlass::arch::fence_view_async_shared();
    named_barrier_sync(128, FwdBarrier::kWarpGroup, warp_group);
  }

  /// Producer: issues every TMA load of the block: the first K tile, then Q into buffer `q_stage` of the Q
  /// ring once `wait_q_free()` says that buffer is free (always, so that every tile completes one phase of
  /// its q_full), then K of tile n before V of tile n + 1 (the order the consumers read them in). The first
  /// K goes out before the wait: its stage was freed long before, and the consumers' first Q·Kᵀ needs both.
  /// Called by one thread. In a cluster pair sharing its K / V loads (Layouts::kKvMulticast) each CTA expects
  /// every stage's bytes on its own barrier and issues the K and V loads of every other key tile (tile n by
  /// the CTA of rank n % 2; both walk the same key tiles, into the same stages), multicast into both CTAs'
  /// stages.
  template <class WaitQFree>
  __device__ static void load(const Params& params, typename Layouts::SharedStorage& smem,
                              PipelineK& pipeline_k, PipelineV& pipeline_v, StateK& write_k, StateV& write_v,
                              const Work& work, int q_stage, const WaitQFree& wait_q_free) {
    using namespace cute;
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
    Tensor gK =
        local_tile(mK, Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_coord(_, _0{}));  // (BLOCK_N, HEAD_DIM, n)
    Tensor gVt = local_tile(mVt, Shape<Int<kHeadDimV>, Int<kBlockN>>{},
                            make_coord(_0{}, _));  // (HEAD_DIM_V, BLOCK_N, n)

    // (TMA, n) global and (TMA, PIPE) shared partitions of K and V.
    const auto tK =
        tma_partition(params.tma_k, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sK), group_modes<0, 2>(gK));
    const auto tV =
        tma_partition(params.tma_v, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sVt), group_modes<0, 2>(gVt));
    // In a pair, key tile n's K and V are loaded by the CTA of rank n % 2, into both CTAs.
    const std::uint16_t both_ctas = 0b11;
    auto load_k = [&](int n, StateK& state) {
      pipeline_k.producer_acquire(state);
      if constexpr (!Layouts::kKvMulticast) {
        copy(params.tma_k.with(*pipeline_k.producer_get_barrier(state)), get<0>(tK)(_, n),
             get<1>(tK)(_, state.index()));
      } else if (issues_pair_load(n)) {
        copy(params.tma_k_mc.with(*pipeline_k.producer_get_barrier(state), both_ctas), get<0>(tK)(_, n),
             get<1>(tK)(_, state.index()));
      }
      ++state;
    };
    auto load_v = [&](int n, StateV& state) {
      pipeline_v.producer_acquire(state);
      if constexpr (!Layouts::kKvMulticast) {
        copy(params.tma_v.with(*pipeline_v.producer_get_barrier(state)), get<0>(tV)(_, n),
             get<1>(tV)(_, state.index()));
      } else if (issues_pair_load(n)) {
        copy(params.tma_v_mc.with(*pipeline_v.producer_get_barrier(state), both_ctas), get<0>(tV)(_, n),
             get<1>(tV)(_, state.index()));
      }
      ++state;
    };

    using BarrierValue = cutlass::arch::ClusterTransactionBarrier::ValueType;
    // Q: one box of 64 rows per consumer warpgroup, into that warpgroup's block of the buffer. (With GQA
    // packing the consumers load Q: load_q_packed.)
    auto load_q = [&] {
      if constexpr (Layouts::kPackGqa) return;
      wait_q_free();
      auto& q_full = smem.barriers.q_full[q_stage];
      q_full.arrive_and_expect_tx(Layouts::kTmaBytesQ);
      CUTE_UNROLL
      for (int w = 0; w < Layouts::kConsumerWarpGroups; ++w) {
        Tensor sQ_wg = make_tensor(make_smem_ptr(smem.q[q_stage].data() + 64 * kHeadDim * w),
                                   typename Layouts::SmemLayoutQWarpGroup{});  // (64, HEAD_DIM)
        Tensor gQ_wg = local_tile(mQ, Shape<_64, Int<kHeadDim>>{},
                                  make_coord(work.row0 / 64 + w, _0{}));  // (64, HEAD_DIM)
        auto [tQgQ, tQsQ] = tma_partition(params.tma_q, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sQ_wg),
                                          group_modes<0, 2>(gQ_wg));  // (TMA), (TMA)
        copy(params.tma_q.with(reinterpret_cast<BarrierValue&>(q_full)), tQgQ, tQsQ);
      }
    };
    if (!work.has_keys()) {
      load_q();
      return;
    }
    load_k(work.n_end - 1, write_k);
    load_q();
    if constexpr (Layouts::kIntraWarpgroupOverlap) {
      // The V loads trail the K loads by one tile, as the consumers' P·V trails their Q·Kᵀ.
      for (int n = work.n_end - 2; n >= work.n_begin; --n) {
        load_k(n, write_k);
        load_v(n + 1, write_v);
      }
      load_v(work.n_begin, write_v);
    } else {
      // Steps in sequence read K_n, then V_n. With one stage per ring, V_n goes out as soon as V_{n+1} is
      // free, under the Q·Kᵀ of step n; had it to wait behind K_{n-1} (free only once every warpgroup's
      // Q·Kᵀ of step n is done), each P·V would wait for its V.
      load_v(work.n_end - 1, write_v);
      for (int n = work.n_end - 2; n >= work.n_begin; --n) {
        load_k(n, write_k);
        load_v(n, write_v);
      }
    }
  }

  /// Consumers: accumulates O (this warpgroup's 64 rows x HEAD_DIM_V, fp32, unnormalised) and the softmax
  /// state over the block's key tiles, once Q landed in buffer `q_stage`. `thread` is the index among the
  /// consumer threads; `pingpong` orders the two warpgroups' wgmma issue. `first_softmax_done()` is called
  /// once, after the softmax of the block's first key tile (at once when the block has no keys); `q_read()`
  /// once, as soon as the block's last Q·Kᵀ has completed (Q is read no more; never when the block has no
  /// keys). With Layouts::kStageOInRings the stages of the block's last K and V tiles are not released (the
  /// epilogue stages O there, then the caller releases them): they are the stages just before `read_k` and
  /// `read_v`.
  template <class PingPongT, class AccO, class FirstSoftmaxDone, class QRead>
  __device__ static void consume(const Params& params, typename Layouts::SharedStorage& smem,
                                 PipelineK& pipeline_k, PipelineV& pipeline_v, StateK& read_k, StateV& read_v,
                                 const Work& work, int q_stage, int thread, const PingPongT& pingpong,
                                 AccO& tOrO, Softmax& softmax, const FirstSoftmaxDone& first_softmax_done,
                                 const QRead& q_read) {
    using namespace cute;
    if (!work.has_keys()) {
      first_softmax_done();
      return;
    }
    Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});
    Tensor sVt = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutVt{});

    // This warpgroup's rows [64 w, 64 w + 64) of the block; w from canonical_warp_group_idx (a shuffle),
    // which the compiler knows is warp-uniform (see Layouts::TiledMmaQK).
    const int warp_group = cutlass::canonical_warp_group_idx() - 1;
    auto own_rows = [&](const auto& tensor) {  // rows [64 w, 64 w + 64) of a (BLOCK_M, BLOCK_N) tensor
      return local_tile(tensor, Shape<_64, Int<kBlockN>>{}, make_coord(warp_group, _0{}));
    };
    typename Layouts::TiledMmaQK mma_qk;
    typename Layouts::TiledMmaPV mma_pv;
    auto thr_qk = mma_qk.get_thread_slice(thread % 128);
    auto thr_pv = mma_pv.get_thread_slice(thread);
    Tensor tSrK = thr_qk.partition_fragment_B(sK);   // (MMA, MMA_N, MMA_K, PIPE) descriptors
    Tensor tOrV = thr_pv.partition_fragment_B(sVt);  // (MMA, MMA_N, MMA_K, PIPE) descriptors
    // (row, col) within the block of each score this thread holds, as a (rows, cols) view.
    Tensor tScS = thr_qk.partition_C(own_rows(make_identity_tensor(Shape<Int<kBlockM>, Int<kBlockN>>{})));
    Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));  // (ROWS, COLS)
    Tensor tOrO_rc = gmma_acc_rowcol(tOrO);                                            // (ROWS, HEAD_DIM_V)
    Tensor tSrS = partition_fragment_C(mma_qk, Shape<_64, Int<kBlockN>>{});            // (MMA, MMA_M, MMA_N)
    Tensor scores = gmma_acc_rowcol(tSrS);                                             // (ROWS, BLOCK_N)
    // P of a step in the element type. With the intra-warpgroup overlap P_{n+1}'s product runs while S_n
    // lands, so P needs registers of its own; steps run in sequence, P takes the first half of S's
    // registers (BLOCK_N / 4 fewer per thread: D = 256's 128-key tile fits only so).
    auto make_p = [&] {
      if constexpr (Layouts::kIntraWarpgroupOverlap) {
        return make_fragment_like<Element>(tSrS);
      } else {
        return make_tensor(make_rmem_ptr<Element>(raw_pointer_cast(tSrS.data())), tSrS.layout());
      }
    };
    Tensor rP = make_p();
    Tensor tOrP = make_tensor(rP.data(), gmma_acc_as_a_layout(rP.layout()));  // (MMA, MMA_M, MMA_K)

    // Only the tiles outside [n_left, n_right) need the mask (Work). The intervals' rows come from a thread
    // index read here: the thread's row within the block, computed once per kernel, would be held through
    // every tile (spilled at D = 192 and 256).
    Tensor tScS_here = mma_qk.get_thread_slice((thread_index_in_loop() - 128) % 128)
                           .partition_C(own_rows(make_identity_tensor(Shape<Int<kBlockM>, Int<kBlockN>>{})));
    const RowKeyIntervals<kRowsPerThread> intervals(
        make_tensor(tScS_here.data(), gmma_acc_rowcol_layout(tScS_here.layout())), work.row0,
        work.key_range(params.base.problem), RowToken{params.by_group});
    auto mask = [&](int n) {
      if (params.base.score_mods || n >= work.n_right || n < work.n_left) {
        mask_tile(params, scores, tScS_rc, intervals, work.slope_log2, n);
      }
    };
    // Q's wgmma descriptors (one 64-bit value per k-slice) are rebuilt from an opaque base at every issue:
    // hoisted out of the loop they would hold 2 registers per k-slice through it, and ptxas spilled them
    // (reloading them every step) with key tiles wider than 128.
    Element* const q_block =
        smem.q[q_stage].data() + warp_group * cosize_v<typename Layouts::SmemLayoutQWarpGroup>;
    auto issue_s = [&](int stage) {
      Tensor sQ = make_tensor(make_smem_ptr(opaque(q_block)), typename Layouts::SmemLayoutQWarpGroup{});
      Tensor tSrQ = thr_qk.partition_fragment_A(sQ);  // (MMA, MMA_M, MMA_K) descriptors
      gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_qk, tSrQ, tSrK(_, _, _, stage), tSrS);
    };
    auto issue_pv = [&](int stage) {
      gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_pv, tOrP, tOrV(_, _, _, stage), tOrO);
    };
    // The K stage of tile n is read no more once S_n landed; the block's last one (n_begin) may be held for
    // the epilogue.
    auto release_k = [&](int n) {
      if (!Layouts::kStageOInRings || n != work.n_begin)
        release_stage(pipeline_k, smem.barriers.pipeline_k, read_k);
      ++read_k;
    };
    // The V stage of the block's last P·V, once it completed.
    auto release_last_v = [&] {
      if constexpr (!Layouts::kStageOInRings) release_stage(pipeline_v, smem.barriers.pipeline_v, read_v);
      ++read_v;
    };
    // S of key tile n (in the stage `read_k` points at), masked, with nothing to overlap it with.
    auto scores_alone = [&](int n) {
      pipeline_k.consumer_wait(read_k);
      pingpong.wait();
      issue_s(read_k.index());
      pingpong.pass();
      gmma_wait<0>(tSrS);
      release_k(n);
      mask(n);
    };

    // Only the first tile visited can hold the sequence end (uniform over the consumers).
    auto zero_v_tail = [&](int n) {
      if (params.base.problem.is_varlen() && (n + 1) * kBlockN > work.seqlen_k) {
        pipeline_v.consumer_wait(read_v);
        // The thread index read here: addresses derived from `thread` would be hoisted out of the tile
        // loop and held (spilled where registers are tight) through every step.
        zero_key_tail(sVt, read_v.index(), work.seqlen_k - n * kBlockN, thread_index_in_loop() - 128);
      }
    };

    if constexpr (!Layouts::kIntraWarpgroupOverlap) {
      // Each tile's S, softmax and P·V in sequence; the ping-pong alone hides the softmax.
      CUTE_NO_UNROLL
      for (int n = work.n_end - 1; n >= work.n_begin; --n) {
        scores_alone(n);
        Softmax::apply(softmax.fold(scores), tOrO_rc);
        convert_fragment_into(tSrS, rP);
        if (n == work.n_end - 1) first_softmax_done();
        pipeline_v.consumer_wait(read_v);
        if (n == work.n_end - 1) zero_v_tail(n);
        pingpong.wait();
        issue_pv(read_v.index());
        pingpong.pass();
        gmma_wait<0>(tOrO, tOrP);
        if (n == work.n_begin) {
          release_last_v();
        } else {
          release_stage(pipeline_v, smem.barriers.pipeline_v, read_v);
          ++read_v;
        }
      }
      q_read();
      return;
    }

    // The first tile: its S alone, no P·V to overlap with yet.
    int n = work.n_end - 1;
    scores_alone(n);
    // O is still zero: no rescale.
    typename Softmax::Rescale rescale = softmax.template fold</*kFirst=*/true>(scores);
    zero_v_tail(n);
    convert_fragment_into(tSrS, rP);
    first_softmax_done();
    // From here on read_v is the stage of the tile whose P is in rP, one tile behind read_k.

    CUTE_NO_UNROLL
    for (--n; n >= work.n_begin; --n) {
      pipeline_k.consumer_wait(read_k);
      pingpong.wait();
      issue_s(read_k.index());
      Softmax::apply(rescale, tOrO_rc);  // for the maxima of the tile whose P·V comes next
      pipeline_v.consumer_wait(read_v);
      issue_pv(read_v.index());
      pingpong.pass();
      gmma_wait<1>(tSrS);  // S_n landed (wgmma groups complete in issue order); P·V still runs
      release_k(n);
      mask(n);
      rescale = softmax.fold(scores);
      gmma_wait<0>(tOrO, tOrP);  // P·V done: rP and the V stage are free
      release_stage(pipeline_v, smem.barriers.pipeline_v, read_v);
      ++read_v;
      convert_fragment_into(tSrS, rP);
    }

    q_read();  // the last Q·Kᵀ landed in the loop's last step (or alone, for a block of one key tile)
    // The last tile's P·V.
    Softmax::apply(rescale, tOrO_rc);
    pipeline_v.consumer_wait(read_v);
    pingpong.wait();
    issue_pv(read_v.index());
    pingpong.pass();
    gmma_wait<0>(tOrO, tOrP);
    release_last_v();
  }

  /// Consumers: hands the stage `state` points at of a K or V ring (`pipeline`, its barriers `ring`) back
  /// to the producer, or in a cluster pair (Layouts::kKvMulticast) to both producers: one thread of each
  /// warpgroup arrives on each CTA's empty barrier (the first lanes of its first and second warps), once
  /// the warpgroup's wgmmas that read the stage completed, as the kernel initialised the barriers; one
  /// predicated arrive, computed here (PipelineTmaAsync::consumer_release keeps the target from
  /// construction, and held through the main loop it spilled).
  template <class Pipeline, class RingStorage, class State>
  __device__ static void release_stage(Pipeline& pipeline, RingStorage& ring, const State& state) {
    if constexpr (!Layouts::kKvMulticast) {
      pipeline.consumer_release(state);
    } else {
      const int thread = threadIdx.x % 128;
      ring.empty_barrier_[state.index()].arrive(static_cast<std::uint32_t>(thread / 32),
                                                static_cast<std::uint32_t>(thread % 32 == 0 && thread < 64));
    }
  }

  /// Consumers, one thread, once the CTA consumed its last stage: waits until the last use of every stage of
  /// a K or V ring (barriers `ring`; `state` the consumers' read state past that use) has been released by
  /// every consumer warpgroup the empty barriers count (a pair's: both CTAs'). A stage never used passes at
  /// once (its barrier's phase before the first counts as complete).
  template <class RingStorage, class State>
  __device__ static void wait_last_releases(RingStorage& ring, State state) {
    for (int i = 0; i < State::Stages; ++i) {
      ring.empty_barrier_[state.index()].wait(state.phase() ^ 1);  // the producer's phase of this use
      ++state;
    }
  }

 private:
  /// Producer of a cluster pair: whether this CTA issues the loads of key tile n (into both CTAs).
  __device__ static bool issues_pair_load(int n) {
    return (n & 1) == static_cast<int>(cute::block_rank_in_cluster());
  }

  /// Masks (and, with score mods, transforms into the log2 domain) the scores of key tile n.
  template <class Scores, class Coords>
  __device__ static void mask_tile(const Params& params, Scores& scores, const Coords& tScS_rc,
                                   const RowKeyIntervals<kRowsPerThread>& intervals, float slope_log2,
                                   int n) {
    const int col0 = n * kBlockN;
    if (params.base.score_mods) {
      scores_to_log2(params.base, scores);
      if (params.base.has_alibi) {
        intervals.template apply<true>(scores, tScS_rc, col0, slope_log2);
        return;
      }
    }
    intervals.template apply<false>(scores, tScS_rc, col0, 0.0f);
  }

  /// Zeroes the V rows of stage `stage` at and past key `valid` of the tile. In a varlen batch those rows
  /// belong to the next sequence, to no sequence (poison) or lie past seqused_k: their p is 0, but 0 * NaN
  /// is NaN in the tensor cores. Only the sequence-end tile needs it. All consumer threads take part.
  template <class SVt>
  __device__ static void zero_key_tail(SVt& sVt, int stage, int valid, int thread) {
    constexpr int kElements = kHeadDimV * kBlockN;
    for (int i = thread; i < kElements; i += kConsumerThreads) {
      const int d = i % kHeadDimV;
      const int key = i / kHeadDimV;
      if (key >= valid) sVt(d, key, stage) = Element(0);
    }
    // Generic-proxy stores read next by wgmma (async proxy): fence, then publish to every consumer.
    cutlass::arch::fence_view_async_shared();
    named_barrier_sync(kConsumerThreads, FwdBarrier::kConsumers);
  }
};

}  // namespace flashattn::cuda::sm90
