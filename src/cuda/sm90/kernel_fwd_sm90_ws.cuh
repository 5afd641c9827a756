// flashattn — the Hopper forward kernel, persistent and warp-specialised: warpgroup 0 produces (one thread
// issues every TMA load, the warpgroup gives most of its registers away with setmaxnreg), warpgroups 1..
// consume (wgmma, softmax, epilogue; each takes 240 registers). Each CTA walks its tiles of the
// scheduler's order, a round at a time until its position passes the last tile; per tile it computes
// BLOCK_M query rows of one (batch, head) against every key tile those rows keep (masked-out key tiles
// are never loaded).
//
// The producer decodes each tile and hands it to the consumers through a ring in shared memory
// (WorkRingSm90), ending with an end marker; the consumers never read the scheduler.
//
// GQA packing (Layouts::kPackGqa, one Q buffer): a tile's rows are the packed rows of one kv head's query
// heads, which no TMA box describes, so each consumer warpgroup loads its own Q rows at the tile's start and
// stores its own O rows (load_q_packed, FwdEpilogueSm90); the producer loads K and V only, and the Q
// barriers below go unused.
//
// Across tiles the K/V stage rings simply continue, so the producer loads the next tile's K and V while
// the consumers finish the current one. Q has a ring of kQStages buffers, tile t of the CTA in buffer
// t % kQStages. q_full[b] (a transaction barrier) says a tile's Q landed in buffer b; q_free[b] (all consumer
// threads arrive) says buffer b may take the next Q. With two or three buffers the epilogue stages the tile's
// O in its Q buffer for a TMA store, q_free waits until the next tile's first softmax is done (the store has
// drained by then), and the producer loads a tile's Q one tile ahead (two buffers) or two (three). With one
// (the head dims whose Q fills 48-64 KB) and kTile.o_in_rings (D = 256), q_free comes right after the tile's
// last Q·Kᵀ, so the next Q loads under the last steps and the epilogue, and O is staged in the stages of the
// tile's last K and V tiles, released to the producer at the next tile's start; without (D = 192), O is
// staged in the Q buffer and q_free comes once its store has read it. Each buffer completes one phase of each
// barrier per use, so both sides track the phases by counting tiles.
//
// Cluster pairs (the *_paired regimes, Layouts::kKvMulticast): CTAs 2c and 2c + 1 take the order's work
// items as one unit c, each its own query head (2h + rank) or query tile (2m + rank) of the item's pair
// (FwdParamsSm90::pairs), so both walk the same key tiles; each K / V stage is loaded by one of them into
// both (FwdMainloopSm90::load), every consumer warpgroup releases a stage to both CTAs' producers, and a
// CTA's consumers leave only once the pair's consumers released its every stage, so that no CTA exits while
// its peer may still signal its barriers.
//
// Cut tiles (unmasked calls whose tiles end in a partial round;
// PersistentTileScheduler::Order::stream_start): after its whole rounds a CTA (a pair: both its CTAs alike)
// walks its stretch of the stream, pieces of tiles whose work items carry their key tiles [n_begin, n_end)
// and a partial role; a piece that writes leaves its rows in the workspace instead of storing them, and the
// piece holding the tile's key tile 0 merges them before its store (split_tail_sm90.cuh).
//
// The kernel body exists only in the sm_90a pass (wgmma and setmaxnreg are sm_90a instructions); other
// arch passes compile an empty kernel, which dispatch never launches (sm90 keys run on sm90 devices only).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cutlass/arch/reg_reconfig.h>
#include <cute/arch/cluster_sm90.hpp>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/sm90/epilogue_fwd_sm90.cuh"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/mainloop_fwd_sm90_tma_wgmma.cuh"
#include "cuda/sm90/params_fwd_sm90.cuh"
#include "cuda/sm90/primitives_sm90.cuh"
#include "cuda/sm90/register_split_sm90.hpp"
#include "cuda/sm90/split_tail_sm90.cuh"
#include "cuda/sm90/tile_scheduler_sm90.hpp"
#include "cuda/sm90/work_fwd_sm90.cuh"

namespace flashattn::cuda::sm90 {

/// Registers per thread after setmaxnreg: the producer needs a handful for addresses and loop state; the
/// consumers hold O, S and P and share the rest of the registers the CTA is launched with
/// (register_split_fits): 24 * 128 + 240 * 256 = 64512 with two consumer warpgroups, 24 * 128 + 160 * 384 =
/// 64512 with three.
inline constexpr int kProducerRegisters = 24;
constexpr int consumer_registers(int consumer_warpgroups) { return consumer_warpgroups == 2 ? 240 : 160; }

/// The cut tiles' workspace layout of a kernel: a consumer thread's rows of its warpgroup's 64 x
/// HEAD_DIM_V accumulator (the row-column view of FwdMainloopSm90).
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
using FwdSplitTailOfSm90 =
    FwdSplitTailSm90<FwdMainloopSm90<Element, kHeadDim, kHeadDimV, kRegime>::kRowsPerThread,
                     64 * kHeadDimV /
                         (128 * FwdMainloopSm90<Element, kHeadDim, kHeadDimV, kRegime>::kRowsPerThread),
                     FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>::kConsumerWarpGroups>;

template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
__global__ void __launch_bounds__(FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>::kThreads, 1)
    fwd_sm90_kernel(const __grid_constant__ FwdParamsSm90<Element, kHeadDim, kHeadDimV, kRegime> params) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Layouts = FwdLayoutsSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  using Mainloop = FwdMainloopSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  using Epilogue = FwdEpilogueSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  using PipelineK = typename Layouts::PipelineK;
  using PipelineV = typename Layouts::PipelineV;
  using Scheduler = PersistentTileScheduler;
  using WorkRing = WorkRingSm90<FwdWorkSm90, Layouts::kConsumerThreads>;
  using SplitTail = FwdSplitTailOfSm90<Element, kHeadDim, kHeadDimV, kRegime>;
  // Cut tiles (the scheduler's stream) where the kernel allows them (not with GQA packing, nor on a tile no
  // cutting call runs on).
  constexpr bool kSplitTail = fwd_split_tail_allowed_sm90(kHeadDim, kHeadDimV, kRegime);
  constexpr int kBlockM = Layouts::kBlockM;
  constexpr int kConsumerRegisters = consumer_registers(Layouts::kConsumerWarpGroups);
  static_assert(
      Layouts::kConsumerWarpGroups == 2 || Layouts::kConsumerWarpGroups == 3,
      "the register split and the ping-pong barriers are laid out for two or three consumer warpgroups");
  static_assert(register_split_fits(kProducerRegisters, kConsumerRegisters, Layouts::kConsumerThreads),
                "setmaxnreg cannot hand out more registers than the CTA was launched with");
  static_assert(kProducerRegisters % 8 == 0 && kConsumerRegisters % 8 == 0,
                "setmaxnreg counts are multiples of 8 in [24, 256]");
  using namespace cute;

  extern __shared__ __align__(1024) char smem_buffer[];
  auto& smem = *reinterpret_cast<typename Layouts::SharedStorage*>(smem_buffer);
  const ForwardParams& p = params.base.problem;
  const Scheduler::Order& order = params.order;

  const int warp_group = cutlass::canonical_warp_group_idx();
  // Both rings: one transaction of a K or V tile per stage, every consumer thread releases.
  auto ring_params = [&](auto* ring, std::uint32_t tile_bytes) {
    using Ring = std::remove_pointer_t<decltype(ring)>;
    typename Ring::Params params;
    params.transaction_bytes = tile_bytes;
    params.role = warp_group == 0 ? Ring::ThreadCategory::Producer : Ring::ThreadCategory::Consumer;
    params.is_leader = threadIdx.x == 0;
    params.num_consumers = Layouts::kConsumerThreads;
    return params;
  };
  constexpr int kQStages = Layouts::kQStages;
  if (threadIdx.x == 0) {
    for (int b = 0; b < kQStages; ++b) {
      smem.barriers.q_full[b].init(1);
      smem.barriers.q_free[b].init(Layouts::kConsumerThreads);
    }
    WorkRing::init(smem.work_ring);
  }
  // Warp 0 initialises the stage barriers (and fences their initialisation). A pair's empty barriers count
  // both CTAs' consumer warpgroups, and Mainloop::release_stage arrives so (the pipelines' own per-thread
  // release targets, which are not set up there, stayed live through the main loop and spilled).
  using ClusterShape = Shape<Int<Layouts::kClusterSize>, _1, _1>;
  using ReleaseTargets = cute::bool_constant<!Layouts::kKvMulticast>;
  PipelineK pipeline_k(smem.barriers.pipeline_k,
                       ring_params(static_cast<PipelineK*>(nullptr), Layouts::kTmaBytesK), ClusterShape{},
                       cute::true_type{}, ReleaseTargets{});
  PipelineV pipeline_v(smem.barriers.pipeline_v,
                       ring_params(static_cast<PipelineV*>(nullptr), Layouts::kTmaBytesV), ClusterShape{},
                       cute::true_type{}, ReleaseTargets{});
  // The CTA barrier publishes every barrier before first use; a pair's cluster barrier does so in both CTAs,
  // whose peer's loads and releases may come before this CTA's first wait.
  if constexpr (Layouts::kKvMulticast) {
    cute::cluster_sync();
  } else {
    __syncthreads();
  }

  if (warp_group == 0) {
    cutlass::arch::warpgroup_reg_dealloc<kProducerRegisters>();
    if (threadIdx.x != 0) return;
    auto write_k = cutlass::make_producer_start_state<PipelineK>();
    auto write_v = cutlass::make_producer_start_state<PipelineV>();
    // The order's unit is a CTA, or a pair (a cluster); the unit's index and count and the CTA's rank in
    // its pair are read from their special registers where used (held, they spilled at 24 registers).
    int tiles_done = 0;
    auto hand_over = [&](const typename Mainloop::Work& work) {
      WorkRing::publish(smem.work_ring, tiles_done, work);
      const int q_stage = tiles_done % kQStages;
      const int q_use = tiles_done / kQStages;  // earlier tiles of this CTA in the same buffer
      Mainloop::load(params, smem, pipeline_k, pipeline_v, write_k, write_v, work, q_stage, [&] {
        if (q_use > 0) smem.barriers.q_free[q_stage].wait((q_use - 1) & 1);
      });
      ++tiles_done;
    };
    constexpr bool kPair = Layouts::kKvMulticast;
    // This CTA's tile of the order's tile (a pair's unit: its query head or query tile).
    auto own_tile = [&](Scheduler::Tile tile) {
      if constexpr (kPair) {
        const int rank = static_cast<int>(cute::block_rank_in_cluster());
        if (params.pairs == FwdPairs::query_tiles) {
          tile.m_block = 2 * tile.m_block + rank;
        } else {
          tile.head = 2 * tile.head + rank;
        }
      }
      return tile;
    };
    for (std::int64_t round = 0;; ++round) {
      const int unit = kPair ? static_cast<int>(cute::cluster_id_in_grid().x) : static_cast<int>(blockIdx.x);
      const int units = kPair ? static_cast<int>(cute::cluster_grid_dims().x) : static_cast<int>(gridDim.x);
      const std::int64_t index = Scheduler::position(unit, units, round);
      if (index >= order.stream_start) break;  // order.positions unless the order ends in a stream
      typename Mainloop::Work work;
      if (!Mainloop::make_work(params, own_tile(Scheduler::tile(order, index)), work)) continue;
      hand_over(work);
    }
    if constexpr (kSplitTail) {
      // The stream (none unless the host set one): this unit's stretch of key tiles, in pieces of tiles; a
      // pair's CTAs take the same pieces, each CTA writing and merging slots of its own rank.
      const int unit = kPair ? static_cast<int>(cute::cluster_id_in_grid().x) : static_cast<int>(blockIdx.x);
      const int end = Scheduler::stream_begin(order, unit + 1);
      for (int u = Scheduler::stream_begin(order, unit); u < end;) {
        const Scheduler::Segment segment = Scheduler::stream_segment(order, u, end);
        u += segment.n_end - segment.n_begin;
        typename Mainloop::Work work;
        if (!Mainloop::make_work(params, own_tile(Scheduler::tile(order, segment.position)), work)) continue;
        work.n_begin = segment.n_begin;
        work.n_end = segment.n_end;
        work.partial_role = segment.partial_role;
        const int slot_unit = segment.partial_role == Scheduler::kMergesPartial ? unit + 1 : unit;
        work.partial_slot =
            kPair ? slot_unit * Layouts::kClusterSize + static_cast<int>(cute::block_rank_in_cluster())
                  : slot_unit;
        hand_over(work);
      }
    }
    WorkRing::publish(smem.work_ring, tiles_done, Mainloop::Work::end());
    return;
  }

  // kStageOInRings: the stage consume() held back, the one before `state` (consume() read nothing since).
  auto held_stage = [](auto state) {
    using State = decltype(state);
    constexpr int kStages = State::Stages;
    return State((state.index() + kStages - 1) % kStages, 0, 0);  // consumer_release reads the index only
  };
  cutlass::arch::warpgroup_reg_alloc<kConsumerRegisters>();
  const int thread = threadIdx.x - 128;
  const PingPong<Layouts::kPingPong, Layouts::kConsumerWarpGroups> pingpong(warp_group - 1);
  pingpong.start();
  typename Mainloop::StateK read_k;
  typename Mainloop::StateV read_v;
  // kStageOInRings: the K and V stages the previous tile's O was staged in, released once its stores have
  // read them (checked at the next tile's start: the store issuer rarely waits there).
  bool holding = false;
  for (int tiles_done = 0;; ++tiles_done) {
    const typename Mainloop::Work& shared_work = WorkRing::wait(smem.work_ring, tiles_done);
    if (shared_work.is_end()) break;
    const typename Mainloop::Work work = shared_work;  // what the main loop reads, in registers
    if (Layouts::kStageOInRings && holding) {
      Epilogue::wait_stores_read(thread);
      pipeline_k.consumer_release(held_stage(read_k));
      pipeline_v.consumer_release(held_stage(read_v));
    }
    // GQA packing: the warpgroup loads its Q rows itself, before O's registers are live.
    if constexpr (Layouts::kPackGqa) Mainloop::load_q_packed(params, smem, work, warp_group - 1);
    typename Layouts::TiledMmaPV mma_pv;
    Tensor tOrO =
        partition_fragment_C(mma_pv, Shape<Int<kBlockM>, Int<kHeadDimV>>{});  // (MMA, MMA_M, MMA_N) fp32
    clear(tOrO);
    typename Mainloop::Softmax softmax(params.base.softmax_scale_log2);
    const int q_stage = tiles_done % kQStages;
    if constexpr (!Layouts::kPackGqa) smem.barriers.q_full[q_stage].wait((tiles_done / kQStages) & 1);
    // Two buffers: the previous tile's buffer goes back once its O store has read it, checked after this
    // tile's first softmax. (Checked right after the first Q·Kᵀ's issue, the store issuer often still
    // waited for it at causal S = 512, whose tiles are 1-4 steps long: -2.5%, docs/PERF.md.)
    // One buffer and O staged in the rings (Layouts::kStageOInRings): Q goes back as soon as the block's last
    // Q·Kᵀ is done, and the next tile's Q loads under this tile's last steps and epilogue. One buffer and O
    // staged in it: Q goes back once O's store has read it.
    Mainloop::consume(
        params, smem, pipeline_k, pipeline_v, read_k, read_v, work, q_stage, thread, pingpong, tOrO, softmax,
        [&] {
          if constexpr (kQStages >= 2) {
            if (tiles_done > 0) {
              Epilogue::wait_stores_read(thread);
              smem.barriers.q_free[(tiles_done - 1) % kQStages].arrive();
            }
          }
        },
        [&] {
          if constexpr (Layouts::kStageOInRings) smem.barriers.q_free[0].arrive();
        });

    float lse[Mainloop::kRowsPerThread];
    Tensor tOrO_rc = gmma_acc_rowcol(tOrO);
    static_assert(decltype(size(tOrO))::value == SplitTail::kRowsPerThread * SplitTail::kColsPerThread,
                  "the cut tiles' slots hold a thread's accumulator");
    softmax.finalize(tOrO_rc, lse);
    // The epilogue reads the tile from its slot again, not from registers held through the main loop.
    const typename Mainloop::Work& epilogue_work = WorkRing::reread(smem.work_ring, tiles_done);
    Tensor gO = make_tensor(make_gmem_ptr(static_cast<Element*>(p.out) + epilogue_work.out_offset),
                            Shape<Int<kBlockM>, Int<kHeadDimV>>{},
                            make_stride(p.out_strides.row, _1{}));  // (BLOCK_M, HEAD_DIM_V)
    float* lse_out = p.lse != nullptr ? p.lse + epilogue_work.lse_offset : nullptr;
    // The warpgroup's own block of Q (64 x HEAD_DIM), which holds its 64 x HEAD_DIM_V block of O.
    Element* o_block = smem.q[q_stage].data() + 64 * kHeadDim * (warp_group - 1);
    if constexpr (Layouts::kStageOInRings) {
      // A block without keys holds no stage: its zeros go through the Q buffer, which it never handed back.
      holding = epilogue_work.has_keys();
      if (holding) {
        // Every warpgroup's last Q·Kᵀ and P·V have completed: no one reads the held stages any more.
        named_barrier_sync(Layouts::kConsumerThreads, FwdBarrier::kConsumers);
        o_block = warp_group == 1 ? smem.k.data() + held_stage(read_k).index() * Layouts::kBlockN * kHeadDim
                                  : smem.v.data() + held_stage(read_v).index() * Layouts::kBlockN * kHeadDimV;
      }
    }
    if (kSplitTail && epilogue_work.partial_role == Scheduler::kWritesPartial) {
      SplitTail::epilogue_write(params.split_tail, epilogue_work.partial_slot, warp_group - 1, thread % 128,
                                tOrO_rc, lse);
    } else {
      if (kSplitTail && epilogue_work.partial_role == Scheduler::kMergesPartial) {
        SplitTail::epilogue_merge(params.split_tail, epilogue_work.partial_slot, warp_group - 1, thread % 128,
                                  tOrO_rc, lse);
      }
      Epilogue::store(params, o_block, tOrO, lse, epilogue_work, gO, lse_out, warp_group - 1);
    }
    if (kQStages == 1 && !holding && !Layouts::kPackGqa) {
      Epilogue::wait_stores_read(thread);  // O sits in Q's buffer until its TMA store has read it
      smem.barriers.q_free[0].arrive();
    }
    WorkRing::release(smem.work_ring, tiles_done);
  }
  // A pair: this CTA's barriers must outlive the peer's last releases into them. Its consumers have
  // released every stage they read (so have the peer's, of the same stages, or they will): one thread waits
  // for the last phase of every stage's empty barrier, as PipelineTmaAsync::producer_tail would on the
  // producer's side, where its loop state held through the producer's loop spilled at 24 registers.
  if (Layouts::kKvMulticast && thread == 0) {
    Mainloop::wait_last_releases(smem.barriers.pipeline_k, read_k);
    Mainloop::wait_last_releases(smem.barriers.pipeline_v, read_v);
  }
  Epilogue::wait_stores_read(thread);  // shared memory must outlive the last TMA store's reads
#endif
}

}  // namespace flashattn::cuda::sm90
