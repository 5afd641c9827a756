// flashattn — the main loop of the Hopper backward kernel for one block of keys: with K and V resident in
// shared memory, walk every (query head, query block) that sees them, accumulate dK and dV in registers
// and add each step's dQ into the fp32 accumulator in global memory. Per step (FlashAttention-3's
// transposed formulation, so that Pᵀ and dSᵀ come out of the accumulators as the register A operand of
// the dV and dK products):
//   Sᵀ = K·Qᵀ; t = the forward's log2-domain score (scale, softcap, ALiBi, mask); Pᵀ = exp2(t - lse·log2 e)
//   dPᵀ = V·dOᵀ;  dSᵀ = Pᵀ ∘ (dPᵀ - D) [∘ (1 - tanh²) with softcap]
//   dV += Pᵀ·dO;  dK += dSᵀ·Q  (unscaled: the epilogue multiplies dK by the softmax scale)
//   dQ  = dS·K (or dQᵀ = Kᵀ·dSᵀ: BwdTileSm90::dq_transposed), staged in shared memory and added to the
//         workspace by a TMA reduce-add
//
// Producer warp 0 (one thread): TMA-loads K and V once (one transaction barrier), then Q and dO of every
// step into a ring of kStages stages guarded by a CUTLASS PipelineTmaAsync (full: both tiles' bytes
// landed; empty: every consumer thread is done reading the stage, i.e. its dV and dK wgmmas completed).
// With the head dim split (D = 256) dO has one stage and a pipeline of its own, released after dV.
//
// Producer warp 1, the dQ writer: per step and consumer warpgroup, waits for the warpgroup's dQ half in
// shared memory (named barrier kDqFull + w), issues one TMA reduce-add of it into the accumulator (the
// additions are atomic per element, in L2) and hands the buffer back once the TMA unit has read it
// (kDqEmpty + w). The consumers thus never wait for global memory, and their stores to shared memory are
// bank-conflict free (128-byte swizzle) where per-thread atomics were 8 bytes each. At D = 256 a
// warpgroup's half of dQ goes through its block of the buffer in kDqSlices slices a step.
//
// Consumers, the keys split (D <= 128; with the head dim split, D = 256, see
// mainloop_bwd_sm90_split_head_dim.cuh; the producer, the dQ writer and the helpers are shared). Two
// warpgroups, 64 keys each: Sᵀ and dPᵀ are issued together; the softmax recompute runs
// while dPᵀ is still executing, and dV = Pᵀ·dO is issued as soon as P is in registers, so it runs under
// the dS arithmetic, or (dv_after_ds) once dS is computed. dSᵀ goes to a double-buffered shared tile, since
// dQ needs dS of all BLOCK_N keys (both warpgroups') and each warpgroup computes half of dQ's head-dim
// columns (or, dq_by_rows, every column of half of the step's query rows). One named barrier per step
// publishes dS; a warpgroup writes dS buffer s % 2 only after both warpgroups passed step s - 1's barrier,
// which each reaches after its dQ wgmma of step s - 2 (the buffer's last reader) completed. dQ is issued
// before dK, so that dK still runs while dQ is staged for the writer (FlashAttention-3's order).
//
// dQ: each key block's contribution is added in whatever order the CTAs reach a query block. With
// deterministic = true the CTAs take turns per (batch, head, query block) in ascending key block (descending
// under a bounded right window, core::bwd_deterministic_descending), through the workspace's semaphores
// (the portable kernel's scheme): the dQ writer waits for its turn, and passes it on once its additions are
// complete in global memory, so the fp32 sums are bitwise reproducible.
// A box's rows past the sequence's end hold exact zeros (their P and dS are 0, see below): they add +0 to
// the next sequence's rows (no change to any bit), and past the last token TMA clips them.
//
// Rows past a sequence's end: TMA reads zeros past a tensor's extent, but inside a varlen batch (or past
// seqused_k) a tile's tail rows belong to the next sequence, to none (poison) or to unused keys. Those rows
// of Q, dO (last query block of a sequence) and K, V (the sequence-end key block) are zeroed in shared
// memory before any product reads them: their P is 0, but 0 * NaN is NaN in the tensor cores.
//
// Kinds of step (as in the portable kernel): bulk blocks (every query row keeps every key, no score mod)
// compute P = exp2(s·scale·log2 e - lse) with no mask; masked blocks and every block of a run with ALiBi
// apply the forward's transform and mask; softcap blocks fold 1 - tanh² (the chain rule) into dP - D.
//
// lse and D of a step's query rows: read from the workspace by the consumers one step ahead into a
// double-buffered shared array (published by the same per-step barrier as dS), so that no thread holds
// them in registers across the products.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <cutlass/arch/barrier.h>
#include <cuda/atomic>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "core/bwd_blocks.hpp"
#include "cuda/common/bwd_kernel_params.hpp"
#include "cuda/common/fragment.cuh"
#include "cuda/common/mask.cuh"
#include "cuda/common/score_mods.cuh"
#include "cuda/common/softmax.cuh"
#include "cuda/sm90/dq_staging_sm90.cuh"
#include "cuda/sm90/layouts_bwd_sm90.cuh"
#include "cuda/sm90/mask_bwd_sm90.cuh"
#include "cuda/sm90/params_bwd_sm90.cuh"
#include "cuda/sm90/primitives_sm90.cuh"

namespace flashattn::cuda::sm90 {

/// Named barriers of the backward kernel (ids above CUTLASS's reserved ones): kConsumers joins every
/// consumer thread; kDqFull + w and kDqEmpty + w join consumer warpgroup w and the dQ writer warp.
/// With the head dim split, kPReady and kdSReady join every consumer thread: Pᵀ, then dSᵀ, of all the step's
/// rows are in shared memory.
enum class BwdBarrier : std::uint32_t {
  kConsumers = 0,
  kDqFull = 1,
  kDqEmpty = 3,
  kPReady = 5,
  kdSReady = 6
};

template <class Element, int kHeadDim>
struct BwdMainloopSm90 {
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  using Params = BwdParamsSm90<Element, kHeadDim>;
  using Pipeline = typename Layouts::PipelineQdO;
  using State = typename Pipeline::PipelineState;
  using PipelinedO = typename Layouts::PipelinedO;
  static constexpr int kBlockM = Layouts::kBlockM;
  static constexpr int kBlockN = Layouts::kBlockN;
  static constexpr int kConsumerThreads = Layouts::kConsumerThreads;
  static constexpr int kConsumerWarpGroups = Layouts::kConsumerWarpGroups;
  static constexpr int kDqWriterWarp = 1;             ///< Warp of the producer warpgroup.
  static constexpr int kDqBarrierThreads = 128 + 32;  ///< A consumer warpgroup and the dQ writer.

  enum class StepKind { bulk, masked, softcap };
  template <StepKind kKind>
  using Step = std::integral_constant<StepKind, kKind>;

  /// A step's query head and query block.
  struct StepCoord {
    int head;
    int m_block;
  };

  /// The CTA's key block and the query work that sees it, shared by the producer and the consumers.
  struct Work {
    int batch;
    int head_kv;
    int first_head;  ///< Query heads [first_head, first_head + heads) read this kv head.
    int heads;
    int seqlen_q;
    int seqlen_k;  ///< Keys of the sequence (seqused_k when given).
    int key_rows;  ///< Rows of the sequence in k (>= seqlen_k): the rows dK and dV are written for.
    int n_block;   ///< The CTA's key block.
    int n0;        ///< First key of the block.
    int m_begin;   ///< Query blocks [m_begin, m_end) hold every row that keeps a key of the block.
    int m_end;
    int m_first;  ///< Each head's walk over [m_begin, m_end) starts here and wraps from m_end to m_begin.
    int m_whole_begin;  ///< Query blocks [m_whole_begin, m_whole_end) need no mask
                        ///< (core::BwdWholeQueryBlocks).
    int m_whole_end;
    std::int64_t q_row_offset;  ///< Row of the sequence's first token in the TMA views of q and dout.
    std::int64_t k_row_offset;  ///< Row of the sequence's first key in the TMA views of k and v.
    int tma_batch;              ///< Batch coordinate of the TMA views (0 for varlen).

    __device__ int steps() const { return (m_end - m_begin) * heads; }
    /// Steps walk the query blocks of one head, then of the next: step s is query block
    /// m_begin + (m_first - m_begin + s % blocks) % blocks of head first_head + s / blocks, reached by
    /// stepping from the first one (a division by the runtime block count cost ~20 dependent instructions
    /// at every step's start).
    __device__ StepCoord first_step() const { return {first_head, m_first}; }
    __device__ StepCoord after(StepCoord at) const {
      const int m_block = at.m_block + 1 < m_end ? at.m_block + 1 : m_begin;
      return m_block != m_first ? StepCoord{at.head, m_block} : StepCoord{at.head + 1, m_block};
    }
  };

  /// The work of CTA `cta`, or nothing when the block starts past its sequence's rows (varlen: the sequence
  /// is shorter than the longest). Order (core::BwdTileCoord, params.section_heads): sections of
  /// (batch, kv head) pairs, key blocks slowest within a section. Key blocks descend where params.descending
  /// (core::bwd_deterministic_descending).
  __device__ static bool make_work(const Params& params, int cta, Work& work) {
    const BackwardParams& p = params.base.problem;
    const int n_blocks = params.base.num_n_blocks;
    const core::BwdTileCoord coord(cta, params.section_heads, n_blocks);
    work.n_block = params.descending ? n_blocks - 1 - coord.n_block : coord.n_block;
    work.batch = coord.batch_head / p.heads_kv;
    work.head_kv = coord.batch_head % p.heads_kv;
    work.key_rows =
        p.cu_seqlens_k ? p.cu_seqlens_k[work.batch + 1] - p.cu_seqlens_k[work.batch] : p.max_seqlen_k;
    work.n0 = work.n_block * kBlockN;
    if (work.n0 >= work.key_rows) return false;
    work.seqlen_q = p.seqlen_q(work.batch);
    work.seqlen_k = p.seqlen_k(work.batch);
    work.heads = p.heads / p.heads_kv;
    work.first_head = work.head_kv * work.heads;
    work.m_begin = 0;
    work.m_end = 0;
    const int n1 = min(work.n0 + kBlockN, work.seqlen_k);
    if (n1 > work.n0) {
      const core::BwdQueryRows rows(work.seqlen_q, work.seqlen_k, p.window_left, p.window_right, work.n0, n1);
      if (rows.begin < rows.end) {
        work.m_begin = static_cast<int>(rows.begin / kBlockM);
        work.m_end = static_cast<int>((rows.end + kBlockM - 1) / kBlockM);
      }
    }
    const core::BwdWholeQueryBlocks whole(work.seqlen_q, work.seqlen_k, p.window_left, p.window_right,
                                          work.n0, kBlockM, kBlockN);
    work.m_whole_begin = whole.begin;
    work.m_whole_end = whole.end;
    // params.rotated_walk (core::bwd_rotated_walk): key block n starts at query block n mod blocks.
    const int blocks = work.m_end - work.m_begin;
    const bool rotate = params.rotated_walk && blocks > 0;
    work.m_first = rotate ? work.m_begin + work.n_block % blocks : work.m_begin;
    work.q_row_offset = p.q_start(work.batch);
    work.k_row_offset = p.k_start(work.batch);
    work.tma_batch = p.is_varlen() ? 0 : work.batch;
    return true;
  }

  /// The dO pipeline's state type (an unused int where dO shares the Q pipeline's stages).
  using StatedO = typename PipelinedO::PipelineState;
  /// The producer's position in the Q / dO pipelines, carried from one tile of a persistent CTA to the next.
  struct LoadState {
    State write = cutlass::make_producer_start_state<Pipeline>();
    StatedO write_do = producer_start_do();
  };
  /// The consumers' position in the Q / dO pipelines, carried from tile to tile.
  struct ConsumeState {
    State read;
    StatedO read_do{};
    int kv_phase = 0;  ///< kv_full's phase of the tile consumed next: one phase a tile
  };

  /// The producer's start state in the dO pipeline (an unused 0 where dO shares the Q pipeline).
  __device__ static StatedO producer_start_do() {
    if constexpr (std::is_same_v<PipelinedO, NoPipeline>) {
      return 0;
    } else {
      return cutlass::make_producer_start_state<PipelinedO>();
    }
  }

  /// Stages of the shallower of the Q and dO rings (dO's own ring, where it has one, holds one).
  static constexpr int ring_stages() {
    if constexpr (std::is_same_v<PipelinedO, NoPipeline>) {
      return Layouts::kStages;
    } else {
      return static_cast<int>(PipelinedO::Stages) < Layouts::kStages ? static_cast<int>(PipelinedO::Stages)
                                                                     : Layouts::kStages;
    }
  }

  /// The pipeline of dO when it has its own (Layouts::PipelinedO; nothing otherwise). Called by every
  /// thread before the CTA barrier that publishes the pipelines' initialisation.
  __device__ static PipelinedO make_pipeline_do(typename Layouts::SharedStorage& smem, bool producer) {
    if constexpr (std::is_same_v<PipelinedO, NoPipeline>) {
      return {};
    } else {
      typename PipelinedO::Params pipeline_params;
      pipeline_params.transaction_bytes = Layouts::kTmaBytesQ;
      pipeline_params.role =
          producer ? PipelinedO::ThreadCategory::Producer : PipelinedO::ThreadCategory::Consumer;
      pipeline_params.is_leader = threadIdx.x == 0;
      pipeline_params.num_consumers = kConsumerThreads;
      return PipelinedO(smem.pipeline_do, pipeline_params, cute::Shape<cute::_1, cute::_1, cute::_1>{});
    }
  }

  /// Producer: issues every TMA load of the CTA's tile `tile` (the tile-th with work): K and V once, and Q
  /// and dO of each step in step order, continuing `state` from the previous tile. With persistent CTAs the
  /// first stages' Q and dO go first: their stages free up during the previous tile's last steps, while its K
  /// and V buffers are read until its epilogue has stored dK and dV from them (kv_empty); with one CTA per
  /// tile K and V go first. A tile with no step loads nothing and passes the buffers to its consumers
  /// (their epilogue stages zeros there). Called by one thread.
  __device__ static void load(const Params& params, typename Layouts::SharedStorage& smem, Pipeline& pipeline,
                              PipelinedO& pipeline_do, const Work& work, int tile, LoadState& state) {
    using namespace cute;
    auto acquire_key_buffers = [&] {
      if (tile > 0) smem.kv_empty.wait((tile - 1) % 2);
    };
    if (work.steps() <= 0) {
      acquire_key_buffers();
      smem.kv_full.arrive();
      return;
    }
    Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});
    Tensor sdO = make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutdO{});
    Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});
    Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutK{});

    auto load_keys = [&] {
      auto key_tile = [&](const auto& tma) {  // (BLOCK_N, HEAD_DIM) of this tile in a TMA view of k or v
        Tensor m = domain_offset(make_coord(static_cast<int>(work.k_row_offset), _0{}),
                                 tma.get_tma_tensor(params.shape_k)(_, _, work.head_kv, work.tma_batch));
        return local_tile(m, Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_coord(work.n_block, _0{}));
      };
      auto [tKgK, tKsK] = tma_partition(params.tma_k, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sK),
                                        group_modes<0, 2>(key_tile(params.tma_k)));
      auto [tVgV, tVsV] = tma_partition(params.tma_v, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sV),
                                        group_modes<0, 2>(key_tile(params.tma_v)));
      using BarrierValue = cutlass::arch::ClusterTransactionBarrier::ValueType;
      acquire_key_buffers();
      smem.kv_full.arrive_and_expect_tx(2 * Layouts::kTmaBytesK);
      copy(params.tma_k.with(reinterpret_cast<BarrierValue&>(smem.kv_full)), tKgK, tKsK);
      copy(params.tma_v.with(reinterpret_cast<BarrierValue&>(smem.kv_full)), tVgV, tVsV);
    };

    // (BLOCK_M, HEAD_DIM, m) tiles of head `head` in a TMA view of q or dout.
    auto query_tiles = [&](const auto& tma, int head) {
      Tensor m = domain_offset(make_coord(static_cast<int>(work.q_row_offset), _0{}),
                               tma.get_tma_tensor(params.shape_q)(_, _, head, work.tma_batch));
      return local_tile(m, Shape<Int<kBlockM>, Int<kHeadDim>>{}, make_coord(_, _0{}));
    };
    // Persistent CTAs: K and V follow the Q and dO of as many steps as the shallower ring holds (one more
    // load would wait for a stage that only this tile's steps, which need K, can free), since the previous
    // tile's epilogue may still hold their buffers. One CTA per tile: its buffers are free, and the first
    // step needs K before anything else, so K and V go first.
    constexpr bool kKeysFirst = !bwd_tile_sm90(kHeadDim).persistent_ctas;
    if constexpr (kKeysFirst) load_keys();
    const int keys_after = kKeysFirst ? -1 : min(work.steps(), ring_stages()) - 1;
    StepCoord at = work.first_step();
    for (int s = 0; s < work.steps(); ++s, at = work.after(at)) {
      const int head = at.head;
      const int m_block = at.m_block;
      // (TMA, m) global and (TMA, PIPE) shared partitions.
      auto [tQgQ, tQsQ] = tma_partition(params.tma_q, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sQ),
                                        group_modes<0, 2>(query_tiles(params.tma_q, head)));
      auto [tdOgdO, tdOsdO] = tma_partition(params.tma_do, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sdO),
                                            group_modes<0, 2>(query_tiles(params.tma_do, head)));
      State& write = state.write;
      pipeline.producer_acquire(write);  // also expects the stage's kTmaBytesPerStage bytes
      copy(params.tma_q.with(*pipeline.producer_get_barrier(write)), tQgQ(_, m_block),
           tQsQ(_, write.index()));
      if constexpr (std::is_same_v<PipelinedO, NoPipeline>) {
        copy(params.tma_do.with(*pipeline.producer_get_barrier(write)), tdOgdO(_, m_block),
             tdOsdO(_, write.index()));
      } else {
        pipeline_do.producer_acquire(state.write_do);
        copy(params.tma_do.with(*pipeline_do.producer_get_barrier(state.write_do)), tdOgdO(_, m_block),
             tdOsdO(_, state.write_do.index()));
        ++state.write_do;
      }
      ++write;
      if (s == keys_after) load_keys();
    }
  }

  /// The dQ writer, once before its first tile: both blocks of the staging buffer start empty.
  __device__ static void release_dq_buffers() {
    CUTE_UNROLL
    for (int w = 0; w < kConsumerWarpGroups; ++w) dq_barrier_arrive(BwdBarrier::kDqEmpty, w);
  }

  /// The dQ writer (every lane of producer warp kDqWriterWarp): adds each step's dQ, staged in shared
  /// memory by the consumer warpgroups, into the workspace's accumulator with one TMA reduce-add per
  /// warpgroup block and slice (kDqSlices rounds a step), issued by lane 0.
  __device__ static void store_dq(const Params& params, typename Layouts::SharedStorage& smem,
                                  const Work& work) {
    using namespace cute;
    const BackwardParams& p = params.base.problem;
    const BwdWorkspace& ws = params.base.workspace;
    const int steps = work.steps();
    if (steps <= 0) return;
    const bool issuer = threadIdx.x % 32 == 0;
    const int token0 = static_cast<int>(ws.token(p, work.batch, 0));  // tokens < 2^31 (see params)
    StepCoord at = work.first_step();
    for (int s = 0; s < steps; ++s, at = work.after(at)) {
      const int head = at.head;
      const int m_block = at.m_block;
      int* semaphore = nullptr;
      if (p.deterministic) {
        semaphore = ws.semaphore(p, work.batch, head, m_block);
        if (issuer) {
          const ::cuda::atomic_ref<int, ::cuda::thread_scope_device> turn(*semaphore);
          const int mine = params.descending ? last_key_block(p, work, m_block) - work.n_block
                                             : work.n_block - first_key_block(p, work, m_block);
          while (turn.load(::cuda::memory_order_acquire) != mine) {
          }
        }
      }
      Tensor mdQ = domain_offset(make_coord(token0, _0{}),
                                 params.tma_dq.get_tma_tensor(params.shape_dq)(_, _, head));  // (tokens, D)
      CUTE_UNROLL
      for (int slice = 0; slice < Layouts::kDqSlices; ++slice) {
        CUTE_UNROLL
        for (int w = 0; w < kConsumerWarpGroups; ++w) {
          cutlass::arch::NamedBarrier::sync(kDqBarrierThreads,
                                            static_cast<std::uint32_t>(BwdBarrier::kDqFull) + w);
          if (issuer) {
            Tensor sdQ = make_tensor(
                make_smem_ptr(smem.dq.data() + w * cosize_v<typename Layouts::SmemLayoutdQWarpGroup>),
                typename Layouts::SmemLayoutdQWarpGroup{});  // (kDqRows, kDqCols)
            Tensor gdQ = local_tile(
                mdQ, Shape<Int<Layouts::kDqRows>, Int<Layouts::kDqCols>>{},
                make_coord(m_block * (kBlockM / Layouts::kDqRows) + w * Layouts::kDqWarpGroupRowStride,
                           w * Layouts::kDqWarpGroupBlockStride + slice));
            auto [tdQgdQ, tdQsdQ] = tma_partition(params.tma_dq, Int<0>{}, Layout<_1>{},
                                                  group_modes<0, 2>(sdQ), group_modes<0, 2>(gdQ));
            copy(params.tma_dq, tdQsdQ, tdQgdQ);
            tma_store_arrive();
          }
        }
        CUTE_UNROLL
        for (int w = 0; w < kConsumerWarpGroups; ++w) {
          // Block w is free once its reduce-add (commit group w of this round) has read it.
          if (issuer) {
            if (w == 0) {
              tma_store_wait<kConsumerWarpGroups - 1>();
            } else {
              tma_store_wait<0>();
            }
          }
          __syncwarp();
          dq_barrier_arrive(BwdBarrier::kDqEmpty, w);
        }
      }
      if (p.deterministic && issuer) {
        // The additions are complete in global memory before the next key block's CTA takes its turn.
        bulk_wait_writes();
        ::cuda::atomic_ref<int, ::cuda::thread_scope_device>(*semaphore)
            .fetch_add(1, ::cuda::memory_order_release);
      }
    }
  }

  /// Consumers: accumulates dK and dV (fp32 fragments of TiledMmadKV over (BLOCK_N, HEAD_DIM)) over the
  /// work's steps and adds dQ into the workspace. `thread` is the index among the consumer threads.
  template <class AccDK, class AccDV>
  __device__ static void consume(const Params& params, typename Layouts::SharedStorage& smem,
                                 Pipeline& pipeline, PipelinedO& pipeline_do, const Work& work, int thread,
                                 AccDK& acc_dk, AccDV& acc_dv, ConsumeState& state) {
    const int kv_phase = state.kv_phase;
    state.kv_phase ^= 1;
    // A tile without steps: the producer has passed the K / V buffers on without loading them, and a
    // persistent CTA's consumers take kv_full's phase with it, so that the next tile's phase lines up. A
    // CTA of one tile has no next tile and skips the wait (consume_* return at once): the wait's path alone
    // made ptxas spill D 256's consumers (128 / 220 bytes against 32 / 28, 9 local loads a step in the loop).
    if (bwd_tile_sm90(kHeadDim).persistent_ctas && work.steps() <= 0) {
      smem.kv_full.wait(kv_phase);
      return;
    }
    if constexpr (Layouts::kSplitHeadDim) {
      consume_split_head_dim(params, smem, pipeline, pipeline_do, work, thread, acc_dk, acc_dv, state.read,
                             state.read_do, kv_phase);
    } else {
      consume_keys(params, smem, pipeline, work, thread, acc_dk, acc_dv, state.read, kv_phase);
    }
  }

 private:
  /// consume() with the keys split: this warpgroup's 64 keys x HEAD_DIM of dK and dV.
  template <class AccDK, class AccDV>
  __device__ static void consume_keys(const Params& params, typename Layouts::SharedStorage& smem,
                                      Pipeline& pipeline, const Work& work, int thread, AccDK& acc_dk,
                                      AccDV& acc_dv, State& read, int kv_phase) {
    using namespace cute;
    const BwdKernelParams& base = params.base;
    const BackwardParams& p = base.problem;
    const int steps = work.steps();
    if (steps <= 0) return;
    constexpr bool kDvAfterDs = bwd_tile_sm90(kHeadDim).dv_after_ds;

    Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});  // (M, D, PIPE)
    Tensor sdO =
        make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutQ{});         // (M, D, PIPE)
    Tensor sQt = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQt{});  // (D, M, PIPE)
    Tensor sdOt =
        make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutQt{});        // (D, M, PIPE)
    Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});    // (N, D)
    Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutK{});    // (N, D)
    Tensor sKt = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutKt{});  // (D, N)
    Tensor sdS = make_tensor(make_smem_ptr(smem.ds.data()), typename Layouts::SmemLayoutdS{});    // (M, N, 2)
    Tensor sdSt = make_tensor(make_smem_ptr(smem.ds.data()), typename Layouts::SmemLayoutdSt{});  // (N, M, 2)

    // Sᵀ and dPᵀ: (N, M) from K / V (A) and Q / dO (B).
    typename Layouts::TiledMmaS mma_s;  // the two share their accumulator layout
    typename Layouts::TiledMmadP mma_dp;
    auto thr_s = mma_s.get_thread_slice(thread);
    auto thr_dp = mma_dp.get_thread_slice(thread);
    Tensor tSrK = thr_s.partition_fragment_A(sK);     // (MMA, MMA_N, MMA_K)
    Tensor tSrV = thr_dp.partition_fragment_A(sV);    // (MMA, MMA_N, MMA_K)
    Tensor tSrQ = thr_s.partition_fragment_B(sQ);     // (MMA, MMA_M, MMA_K, PIPE)
    Tensor tSrdO = thr_dp.partition_fragment_B(sdO);  // (MMA, MMA_M, MMA_K, PIPE)
    Tensor tSrS = partition_fragment_C(mma_s, Shape<Int<kBlockN>, Int<kBlockM>>{});    // (MMA, 1, 1) fp32
    Tensor tSrdP = partition_fragment_C(mma_dp, Shape<Int<kBlockN>, Int<kBlockM>>{});  // (MMA, 1, 1) fp32
    Tensor scores = gmma_acc_rowcol(tSrS);  // (ROWS = keys, COLS = query rows)
    Tensor dps = gmma_acc_rowcol(tSrdP);
    // (key, query row) within the tile of each score this thread holds, as a (rows, cols) view.
    Tensor tScS = thr_s.partition_C(make_identity_tensor(Shape<Int<kBlockN>, Int<kBlockM>>{}));
    Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));

    // dV and dK: (N, D) from Pᵀ / dSᵀ (A, registers) and dOᵀ / Qᵀ (B).
    typename Layouts::TiledMmadKV mma_dkv;
    auto thr_dkv = mma_dkv.get_thread_slice(thread);
    Tensor tdVrdOt = thr_dkv.partition_fragment_B(sdOt);  // (MMA, MMA_D, MMA_K, PIPE)
    Tensor tdKrQt = thr_dkv.partition_fragment_B(sQt);    // (MMA, MMA_D, MMA_K, PIPE)
    Tensor rP = make_fragment_like<Element>(tSrS);
    Tensor rdS = make_fragment_like<Element>(tSrdP);
    Tensor tdVrP = make_tensor(rP.data(), gmma_acc_as_a_layout(rP.layout()));     // (MMA, MMA_N, MMA_K)
    Tensor tdKrdS = make_tensor(rdS.data(), gmma_acc_as_a_layout(rdS.layout()));  // (MMA, MMA_N, MMA_K)
    // dSᵀ registers -> shared memory.
    auto copy_ds = make_tiled_copy_C(typename Layouts::SmemCopyAtomdS{}, mma_dp);
    auto thr_copy_ds = copy_ds.get_slice(thread);
    Tensor tdSrdS = thr_copy_ds.retile_S(rdS);
    Tensor tdSsdS = thr_copy_ds.partition_D(sdSt);  // (CPY, CPY_N, CPY_M, 2)

    // dQ: (M, D) from dS (A) and Kᵀ (B) over all BLOCK_N keys: this warpgroup's half of the head-dim
    // columns, or (dq_by_rows) every column of its 64 query rows; or (dq_transposed) dQᵀ: (D, M) from Kᵀ
    // (A) and dS (B), this warpgroup's half of the head dim.
    constexpr bool kDqTransposed = Layouts::kDqTransposed;
    const int warp_group = thread / 128;
    std::conditional_t<kDqTransposed, typename Layouts::TiledMmadQt, typename Layouts::TiledMmadQ> mma_dq;
    auto thr_dq = mma_dq.get_thread_slice(thread);
    Tensor tdQrdS = [&] {  // (MMA, MMA_M, MMA_K, 2), transposed (MMA, MMA_N, MMA_K, 2)
      if constexpr (kDqTransposed) {
        return thr_dq.partition_fragment_B(sdS);
      } else {
        return thr_dq.partition_fragment_A(sdS);
      }
    }();
    Tensor tdQrKt = [&] {  // (MMA, MMA_D, MMA_K)
      if constexpr (kDqTransposed) {
        return thr_dq.partition_fragment_A(sKt);
      } else {
        return thr_dq.partition_fragment_B(sKt);
      }
    }();
    Tensor tdQrdQ =
        partition_fragment_C(mma_dq, std::conditional_t<kDqTransposed, Shape<Int<kHeadDim>, Int<kBlockM>>,
                                                        Shape<Int<kBlockM>, Int<kHeadDim>>>{});  // fp32
    auto issue_dq = [&](int ds_buffer) __attribute__((always_inline)) {
      if constexpr (kDqTransposed) {
        gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dq, tdQrKt, tdQrdS(_, _, _, ds_buffer), tdQrdQ);
      } else {
        gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dq, tdQrdS(_, _, _, ds_buffer), tdQrKt, tdQrdQ);
      }
    };
    // This warpgroup's block of the dQ writer's staging buffer.
    const std::uint32_t dq_block = cute::cast_smem_ptr_to_uint(
        smem.dq.data() + warp_group * cosize_v<typename Layouts::SmemLayoutdQWarpGroup>);

    // Hands this warpgroup's staged dQ to the writer, right after staging it. The writer reads the block
    // well before the next step stages its own.
    auto hand_over_dq = [&] {
      cutlass::arch::fence_view_async_shared();  // the stores, seen by the TMA unit (async proxy)
      dq_barrier_arrive(BwdBarrier::kDqFull, warp_group);
    };
    start_consuming(params, smem, work, thread,
                    kv_phase);  // each step stages the next step's lse and D before its dS barrier

    // Waits for the Q and dO of the step at `at` (pipeline state `state`); zeroes their rows past a varlen
    // sequence's end (an all-consumer barrier, which both warpgroups reach in the same step). The stage.
    auto acquire_stage = [&](const State& state, StepCoord at) __attribute__((always_inline)) {
      pipeline.consumer_wait(state);
      const int stage = state.index();
      const int row0 = at.m_block * kBlockM;
      if (p.is_varlen() && row0 + kBlockM > work.seqlen_q) {
        Tensor sQ_stage = sQ(_, _, stage);
        Tensor sdO_stage = sdO(_, _, stage);
        zero_rows(sQ_stage, work.seqlen_q - row0, thread);
        zero_rows(sdO_stage, work.seqlen_q - row0, thread);
        publish_shared_writes();
      }
      return stage;
    };
    // Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ of the step whose Q and dO are in `stage`, each its own commit group.
    // With dv_after_ds the accumulators are cleared first: a zero-initialising wgmma does not read them,
    // but its C operand is read-write in PTX, so ptxas keeps them live from the previous step's dS to here,
    // across the dQ and dK products (at 80 query rows that left too few registers, and ptxas serialised
    // every wgmma of the kernel: C7512). The clear ends that range; ptxas drops the moves themselves (the
    // first k-slice's HGMMA takes RZ).
    auto issue_scores = [&](int stage) __attribute__((always_inline)) {
      if constexpr (kDvAfterDs) clear(tSrS);
      gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_s, tSrK, tSrQ(_, _, _, stage), tSrS);
    };
    auto issue_dp = [&](int stage) __attribute__((always_inline)) {
      if constexpr (kDvAfterDs) clear(tSrdP);
      gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dp, tSrV, tSrdO(_, _, _, stage), tSrdP);
    };

    auto step = [&](int s, StepCoord at, StepCoord next, auto kind) __attribute__((always_inline)) {
      constexpr StepKind kKind = decltype(kind)::value;
      const int head = at.head;
      const int row0 = at.m_block * kBlockM;
      const float* lse_log2 = smem.lse_log2[s & 1];  // by query row of the block
      const float* dsum = smem.dsum[s & 1];

      const int stage = acquire_stage(read, at);
      issue_scores(stage);
      issue_dp(stage);
      const float next_stat = s + 1 < steps ? load_stat(params, work, next, thread) : 0.0f;

      if constexpr (kKind == StepKind::softcap) {
        // dS = P ∘ (1 - tanh²) ∘ (dP - D): the factor is folded into dP - D as the scores are
        // transformed, so no tile of it stays live (at the cost of waiting for dPᵀ first).
        gmma_wait<0>(tSrS, tSrdP);
        fold_softcap_chain(base, scores, dps, tScS_rc, dsum);
      } else {
        gmma_wait<1>(tSrS);  // Sᵀ landed (wgmma groups complete in issue order); dPᵀ still runs
      }
      scores_to_p<kKind>(params, work, head, row0, scores, tScS_rc, lse_log2);
      // dV += Pᵀ·dO (it reads rP, left untouched until the final wait): issued now, it runs while dS is
      // computed; with dv_after_ds, once dS is.
      auto issue_dv = [&] {
        convert_fragment_into(tSrS, rP);
        gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdVrP, tdVrdOt(_, _, _, stage), acc_dv);
      };
      if constexpr (!kDvAfterDs) issue_dv();

      if constexpr (kKind != StepKind::softcap) gmma_wait<kDvAfterDs ? 0 : 1>(tSrdP);  // dPᵀ landed
      ds_from_p<kKind>(scores, dps, tScS_rc, dsum);
      if constexpr (kDvAfterDs) issue_dv();
      convert_fragment_into(tSrdP, rdS);
      const int ds_buffer = s & 1;
      copy(copy_ds, tdSrdS, tdSsdS(_, _, _, ds_buffer));
      if (s + 1 < steps) store_stat(smem, s + 1, thread, next_stat);

      publish_shared_writes();  // dS of all BLOCK_N keys (and the next step's lse and D) are in shared memory
      issue_dq(ds_buffer);
      gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdKrdS, tdKrQt(_, _, _, stage), acc_dk);
      // dV and dQ landed (groups complete in issue order); dK runs under the staging.
      gmma_wait<1>(tdQrdQ);
      // Hand dQ to the writer once it has read the previous step's (its reduce-add may still be running).
      cutlass::arch::NamedBarrier::sync(kDqBarrierThreads,
                                        static_cast<std::uint32_t>(BwdBarrier::kDqEmpty) + warp_group);
      // The address base from a fresh thread index: not hoisted, so not held across the steps.
      const auto wg_thread = static_cast<std::uint32_t>(thread_index_in_loop()) % 128;
      if constexpr (kDqTransposed) {
        stage_dq_transposed<kBlockM>(tdQrdQ, dq_block, wg_thread);
      } else {
        stage_dq_keys_split<Layouts::kDqWidth>(tdQrdQ, dq_block, wg_thread);
      }
      gmma_wait<0>(acc_dv, acc_dk, tdVrP, tdKrdS);
      // The fence waits for the stores to complete: after dK's wait, the two waits overlap.
      hand_over_dq();
      pipeline.consumer_release(read);  // this thread is done with the stage's Q and dO
      ++read;
    };

    run_steps(params, work, step);
  }

  /// consume() with the head dim split (mainloop_bwd_sm90_split_head_dim.cuh).
  template <class AccDK, class AccDV>
  __device__ static void consume_split_head_dim(const Params& params, typename Layouts::SharedStorage& smem,
                                                Pipeline& pipeline, PipelinedO& pipeline_do, const Work& work,
                                                int thread, AccDK& acc_dk, AccDV& acc_dv, State& read,
                                                StatedO& read_do, int kv_phase);

  /// The lse (log2 units; +inf past the sequence end or for a row with no key, so P = 0) and D of the
  /// rows of step s are staged by the consumers into buffer s % 2 of shared memory one step ahead: written
  /// during step s - 1 (after that thread passed step s - 2's last barrier of the buffer's readers, which
  /// follows every read of the buffer's previous contents) and read in step s (after step s - 1's). Each
  /// of the first 2 * BLOCK_M consumer threads loads one value (lse, then D) and later stores it, so the
  /// load's latency passes under the step's products instead of stalling the thread at the store.
  static_assert(2 * kBlockM <= kConsumerThreads, "one statistic a consumer thread");
  __device__ static float load_stat(const Params& params, const Work& work, StepCoord at, int t) {
    const BackwardParams& p = params.base.problem;
    const BwdWorkspace& ws = params.base.workspace;
    float value = 0.0f;
    if (t < 2 * kBlockM) {
      const int row = at.m_block * kBlockM + t % kBlockM;
      const bool valid = row < work.seqlen_q;
      const std::int64_t index = ws.stat_index(at.head, ws.token(p, work.batch, valid ? row : 0));
      if (t < kBlockM) {
        value = valid ? ws.lse_log2[index] : INFINITY;
      } else {
        value = valid ? ws.dsum[index] : 0.0f;
      }
    }
    return value;
  }
  __device__ static void store_stat(typename Layouts::SharedStorage& smem, int s, int t, float value) {
    if (t < kBlockM) {
      smem.lse_log2[s & 1][t] = value;
    } else if (t < 2 * kBlockM) {
      smem.dsum[s & 1][t - kBlockM] = value;
    }
  }

  /// What both consumers do before a tile's first step (every consumer thread takes part): wait for the
  /// tile's K and V (kv_full's phase `kv_phase`), zero the rows past the last key of a varlen batch's or
  /// seqused_k's sequence-end key block, and stage the lse and D of step 0 (load_stat), published by an
  /// all-consumer barrier. Step 0's lse and D are loaded before the wait for K and V, which they do not need:
  /// a tile's start is a chain of memory round trips (K and V, then these, then the first products), which
  /// at short sequences, 8 steps a tile at S 512, is a large part of the tile's time.
  __device__ __forceinline__ static void start_consuming(const Params& params,
                                                         typename Layouts::SharedStorage& smem,
                                                         const Work& work, int thread, int kv_phase) {
    using namespace cute;
    const BackwardParams& p = params.base.problem;
    const float stat0 = load_stat(params, work, work.first_step(), thread);
    smem.kv_full.wait(kv_phase);
    if ((p.is_varlen() || p.seqused_k != nullptr) && work.n0 + kBlockN > work.seqlen_k) {
      Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});
      Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutK{});
      zero_rows(sK, work.seqlen_k - work.n0, thread);
      zero_rows(sV, work.seqlen_k - work.n0, thread);
      publish_shared_writes();
    }
    store_stat(smem, 0, thread, stat0);
    cutlass::arch::NamedBarrier::sync(kConsumerThreads, static_cast<std::uint32_t>(BwdBarrier::kConsumers));
  }

  /// Runs step(s, coordinates of s, coordinates of s + 1, Step<kind>) for every step of the work. The
  /// block needs no mask when its first row keeps every key up to the block's end and its last valid row
  /// keeps every key from the block's start (key intervals grow with the row). ALiBi's bias is applied with
  /// the mask, so it takes the masked step throughout; softcap has a step kind of its own.
  template <class StepFn>
  __device__ __forceinline__ static void run_steps(const Params& params, const Work& work, StepFn& step) {
    // Whole blocks (no row misses a key of the CTA's block) from the work's range, found once per CTA: the
    // per-step test from the block's rows took ~50 instructions of 64-bit arithmetic a step.
    auto whole = [&](StepCoord at) {
      return at.m_block >= work.m_whole_begin && at.m_block < work.m_whole_end;
    };
    StepCoord at = work.first_step();
    for (int s = 0; s < work.steps(); ++s) {
      const StepCoord next = work.after(at);
      dispatch(params, step, s, at, next, whole(at));
      at = next;
    }
  }
  /// Runs step s as the kind its block and the score mods call for.
  template <class StepFn>
  __device__ __forceinline__ static void dispatch(const Params& params, StepFn& step, int s, StepCoord at,
                                                  StepCoord next, bool whole) {
    if (params.base.softcap_pre > 0.0f) {
      step(s, at, next, Step<StepKind::softcap>{});
    } else if (params.base.has_alibi || !whole) {
      step(s, at, next, Step<StepKind::masked>{});
    } else {
      step(s, at, next, Step<StepKind::bulk>{});
    }
  }

  /// Zeroes rows [valid, rows) of a (rows, HEAD_DIM) shared tile; every consumer thread takes part. A
  /// swizzle permutes whole 16-byte chunks, so 8 elements from a multiple of 8 are contiguous. Not unrolled:
  /// unrolled, the chunks' swizzled addresses would be hoisted and held in registers across the main loop.
  template <class Tile>
  __device__ static void zero_rows(Tile& tile, int valid, int thread) {
    constexpr int kChunksPerRow = kHeadDim / 8;
    constexpr int kChunks = decltype(cute::size<0>(tile))::value * kChunksPerRow;
    CUTE_NO_UNROLL
    for (int chunk = thread; chunk < kChunks; chunk += kConsumerThreads) {
      const int row = chunk / kChunksPerRow;
      if (row >= valid) {
        *reinterpret_cast<uint4*>(&tile(row, chunk % kChunksPerRow * 8)) = uint4{0, 0, 0, 0};
      }
    }
  }

  /// Makes every consumer thread's generic-proxy shared-memory stores visible to the wgmmas (async proxy)
  /// any consumer warpgroup issues next, through all-consumer barrier `id`.
  __device__ static void publish_shared_writes(BwdBarrier id = BwdBarrier::kConsumers) {
    cutlass::arch::fence_view_async_shared();
    cutlass::arch::NamedBarrier::sync(kConsumerThreads, static_cast<std::uint32_t>(id));
  }

  /// Softcap steps, once Sᵀ and dPᵀ have landed: the scores become the forward's log2-domain
  /// t = tanh(s · softcap_pre) · score_to_log2 (before the mask), and dPᵀ becomes (1 − tanh²) ∘ (dP − D),
  /// the chain rule's factor folded in as the scores are transformed so no tile of it stays live. `coords`:
  /// the (key, query row) of each value; `dsum`: D by query row of the block.
  template <class Scores, class Coords>
  __device__ __forceinline__ static void fold_softcap_chain(const BwdKernelParams& base, Scores& scores,
                                                            Scores& dps, const Coords& coords,
                                                            const float* dsum) {
    using namespace cute;
    constexpr int kRows = decltype(size<0>(coords))::value;
    constexpr int kCols = decltype(size<1>(coords))::value;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      CUTE_UNROLL
      for (int c = 0; c < kCols; ++c) {
        const float th = softcap_tanh(scores(r, c) * base.softcap_pre);
        dps(r, c) = (1.0f - th * th) * (dps(r, c) - dsum[get<1>(coords(0, c))]);
        scores(r, c) = th * base.score_to_log2;
      }
    }
  }

  /// dSᵀ = Pᵀ ∘ (dPᵀ − D) in place of dPᵀ, from P in `scores` (fp32); a softcap step's dPᵀ already holds
  /// (1 − tanh²) ∘ (dP − D) (fold_softcap_chain).
  template <StepKind kKind, class Scores, class Coords>
  __device__ __forceinline__ static void ds_from_p(const Scores& scores, Scores& dps, const Coords& coords,
                                                   const float* dsum) {
    using namespace cute;
    if constexpr (kKind == StepKind::softcap) {
      CUTE_UNROLL
      for (int i = 0; i < size(dps); ++i) dps(i) *= scores(i);
    } else {
      constexpr int kRows = decltype(size<0>(coords))::value;
      constexpr int kCols = decltype(size<1>(coords))::value;
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        CUTE_UNROLL
        for (int c = 0; c < kCols; ++c) dps(r, c) = scores(r, c) * (dps(r, c) - dsum[get<1>(coords(0, c))]);
      }
    }
  }

  /// P = exp2(t − lse) in place from a step's scores: raw scores of a bulk step (scaled, no mask) or of a
  /// masked one (scaled, then masked), or a softcap step's, already in the log2 domain (masked).
  template <StepKind kKind, class Scores, class Coords>
  __device__ __forceinline__ static void scores_to_p(const Params& params, const Work& work, int head,
                                                     int row0, Scores& scores, const Coords& coords,
                                                     const float* lse_log2) {
    using namespace cute;
    const float scale = params.base.score_to_log2;
    if constexpr (kKind == StepKind::bulk) {
      constexpr int kRows = decltype(size<0>(coords))::value;
      constexpr int kCols = decltype(size<1>(coords))::value;
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        CUTE_UNROLL
        for (int c = 0; c < kCols; ++c)
          scores(r, c) = exp2_approx(scores(r, c) * scale - lse_log2[get<1>(coords(0, c))]);
      }
    } else {
      if constexpr (kKind == StepKind::masked) {
        CUTE_UNROLL
        for (int i = 0; i < size(scores); ++i) scores(i) *= scale;
      }
      apply_mask_and_exp(params, work, head, row0, scores, coords, lse_log2);
    }
  }

  /// The masked step's transform of log2-domain scores t (already scaled, softcapped where on; (key, query
  /// row) coordinates in `coords`): mask and ALiBi as in the forward, then P = exp2(t − lse) in place.
  /// The key intervals are rebuilt per masked step (a few integer ops) rather than held in registers across
  /// the loop.
  template <class Scores, class Coords>
  __device__ static void apply_mask_and_exp(const Params& params, const Work& work, int head, int row0,
                                            Scores& scores, const Coords& coords, const float* lse_log2) {
    using namespace cute;
    const BackwardParams& p = params.base.problem;
    constexpr int kRows = decltype(size<0>(coords))::value;
    constexpr int kCols = decltype(size<1>(coords))::value;
    const KeyRowQueryIntervals<kRows> intervals(p, coords, work.n0, work.seqlen_q, work.seqlen_k);
    if (params.base.has_alibi) {
      const float slope_log2 = p.alibi_slopes[work.batch * p.alibi_batch_stride + head] * kLog2e;
      intervals.template apply<true>(scores, coords, row0, slope_log2);
    } else {
      intervals.template apply<false>(scores, coords, row0, 0.0f);
    }
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      CUTE_UNROLL
      for (int c = 0; c < kCols; ++c)
        scores(r, c) = exp2_approx(scores(r, c) - lse_log2[get<1>(coords(0, c))]);
    }
  }

  /// The first and the last key block whose CTAs add into query block `m_block` (core/bwd_blocks.hpp).
  __device__ static int first_key_block(const BackwardParams& p, const Work& work, int m_block) {
    return core::bwd_first_key_block(m_block, kBlockM, kBlockN, work.seqlen_q, work.seqlen_k, p.window_left);
  }
  __device__ static int last_key_block(const BackwardParams& p, const Work& work, int m_block) {
    return core::bwd_last_key_block(m_block, kBlockM, kBlockN, work.seqlen_q, work.seqlen_k, p.window_right);
  }

  /// Arrives (without waiting) at barrier `id` + `warp_group` of a consumer warpgroup and the dQ writer.
  __device__ static void dq_barrier_arrive(BwdBarrier id, int warp_group) {
    cutlass::arch::NamedBarrier::arrive(kDqBarrierThreads, static_cast<std::uint32_t>(id) + warp_group);
  }
};

}  // namespace flashattn::cuda::sm90

#include "cuda/sm90/mainloop_bwd_sm90_split_head_dim.cuh"
