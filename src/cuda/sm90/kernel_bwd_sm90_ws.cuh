// flashattn — the Hopper backward kernel, warp-specialised: warpgroup 0 produces (one thread issues every
// TMA load, warp 1 adds dQ into the workspace by TMA reduce-add; the warpgroup gives most of its registers
// away with setmaxnreg), warpgroups 1 and 2 consume (wgmma, the softmax recompute, dQ staged in shared
// memory and the epilogue; 240 registers each). A work tile is BLOCK_N keys of one (batch, kv head): its
// CTA loads K and V once, walks every query block of every query head of the kv head's group that sees
// those keys, and writes dK and dV once — summed over the group in registers, with no atomics and no
// separate reduction. Query blocks that see none of the keys are never loaded. The CTAs are persistent
// (one per SM, taking tiles in their order from a counter), so a tile's first Q and dO load under the
// previous tile's last steps and epilogue, and the CTA's start is paid once; or, where the tile says so
// (BwdTileSm90::persistent_ctas false: D 256), one per tile, started by the hardware in the tile order, with
// a one-tile body that keeps no ring or cross-tile state.
// Deterministic runs make a tile wait for the tiles of lower key blocks of its (batch, kv head): they come
// first in the tile order, and tiles are taken (or their CTAs started) in that order, so the lowest
// unfinished tile has been taken by a CTA whose earlier tiles are done, and it runs: the waits always end.
//
// The kernel body exists only in the sm_90a pass (wgmma and setmaxnreg are sm_90a instructions); other
// arch passes compile an empty kernel, which dispatch never launches (sm90 keys run on sm90 devices only).
#pragma once

#include <cstdint>

#include <cutlass/arch/reg_reconfig.h>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/sm90/epilogue_bwd_sm90.cuh"
#include "cuda/sm90/layouts_bwd_sm90.cuh"
#include "cuda/sm90/mainloop_bwd_sm90_tma_wgmma.cuh"
#include "cuda/sm90/params_bwd_sm90.cuh"
#include "cuda/sm90/register_split_sm90.hpp"

namespace flashattn::cuda::sm90 {

/// Registers per thread after setmaxnreg: the producer needs a handful for addresses and the tile and step
/// loops (at 24 its persistent loops spill, in producer code only); the two consumer warpgroups hold dK,
/// dV, Sᵀ, dPᵀ and dQ: 24 * 128 + 240 * 256 = 64512, the 168 registers a thread of the CTA's 384 is launched
/// with (register_split_fits).
inline constexpr int kBwdProducerRegisters = 24;
inline constexpr int kBwdConsumerRegisters = 240;

/// Grid: up to one CTA per SM over params.tiles tiles (key block, kv head, batch), flattened (y and z would
/// cap B and H at 65535) in the order of params.longest_first (BwdMainloopSm90::make_work).
template <class Element, int kHeadDim>
__global__ void __launch_bounds__(BwdLayoutsSm90<Element, kHeadDim>::kThreads, 1)
    bwd_sm90_kernel(const __grid_constant__ BwdParamsSm90<Element, kHeadDim> params) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Layouts = BwdLayoutsSm90<Element, kHeadDim>;
  using Mainloop = BwdMainloopSm90<Element, kHeadDim>;
  using Epilogue = BwdEpilogueSm90<Element, kHeadDim>;
  using Pipeline = typename Layouts::PipelineQdO;
  constexpr int kBlockN = Layouts::kBlockN;
  static_assert(Layouts::kConsumerWarpGroups == 2,
                "the register split is laid out for two consumer warpgroups");
  static_assert(register_split_fits(kBwdProducerRegisters, kBwdConsumerRegisters, Layouts::kConsumerThreads),
                "setmaxnreg cannot hand out more registers than the CTA was launched with");
  static_assert(kBwdProducerRegisters % 8 == 0 && kBwdConsumerRegisters % 8 == 0,
                "setmaxnreg counts are multiples of 8 in [24, 256]");
  using namespace cute;

  extern __shared__ __align__(1024) char smem_buffer[];
  auto& smem = *reinterpret_cast<typename Layouts::SharedStorage*>(smem_buffer);
  const BackwardParams& p = params.base.problem;
  // One CTA per tile (BwdTileSm90::persistent_ctas false): blockIdx.x is the CTA's only tile, and nothing
  // carries over from one tile to another, so no ring, counter or cross-tile state takes registers.
  constexpr bool kPersistent = bwd_tile_sm90(kHeadDim).persistent_ctas;
  typename Mainloop::Work only_work;
  if constexpr (!kPersistent) {
    if (!Mainloop::make_work(params, static_cast<int>(blockIdx.x), only_work))
      return;  // uniform over the CTA
  }

  const int warp_group = cutlass::canonical_warp_group_idx();
  typename Pipeline::Params pipeline_params;
  pipeline_params.transaction_bytes = Layouts::kTmaBytesPerStage;  // Q (and dO) of a step
  pipeline_params.role =
      warp_group == 0 ? Pipeline::ThreadCategory::Producer : Pipeline::ThreadCategory::Consumer;
  pipeline_params.is_leader = threadIdx.x == 0;
  pipeline_params.num_consumers = Layouts::kConsumerThreads;
  using TileRing = BwdTileRing<Layouts::kConsumerThreads>;
  if (threadIdx.x == 0) {
    smem.kv_full.init(1);
    smem.kv_empty.init(Layouts::kConsumerThreads);
    TileRing::init(smem.tile_ring);
  }
  // Warp 0 initialises the stage barriers (and fences their initialisation); the CTA barrier publishes
  // every barrier before first use.
  Pipeline pipeline(smem.pipeline_qdo, pipeline_params, Shape<_1, _1, _1>{});
  typename Layouts::PipelinedO pipeline_do = Mainloop::make_pipeline_do(smem, warp_group == 0);
  __syncthreads();

  // The CTA's tiles: blockIdx.x, then one at a time from the workspace's tile counter (gridDim.x + the
  // count), each taken once the previous tile's loads are issued, a ring's depth of steps before that tile
  // ends; so tiles start in their order (params.section_heads's: core::BwdTileCoord), as the hardware would
  // start one CTA per tile, and a CTA that drew short tiles takes more. (Taken as the previous tile started
  // loading, a whole tile early, the order's balance fell from 1.01 to 1.09x the mean at D 128 causal 16k in
  // bench/bwd_schedule_sim.py's model, and that grid ran 7% slower: docs/PERF.md, backward session 28. A
  // fixed share per CTA, every gridDim.x-th tile, put 1.2-1.65x the mean work on one CTA at S <= 2k under a
  // causal mask.) The producer hands each index
  // through the tile ring; every role walks the same tiles, and tile i of those with work takes phase i % 2
  // of kv_full and kv_empty. The Q / dO pipeline states run on across the tiles, so the producer loads a
  // tile's first stages while the consumers finish the previous tile.
  auto for_each_tile = [&](auto&& body) {  // the readers of the ring
    if constexpr (kPersistent) {
      typename Mainloop::Work work;
      int with_work = 0;
      for (int count = 0;; ++count) {
        const int tile = TileRing::wait(smem.tile_ring, count);
        TileRing::release(smem.tile_ring, count);
        if (tile < 0) break;
        if (Mainloop::make_work(params, tile, work)) body(work, with_work++);
      }
    } else {
      body(only_work, 0);
    }
  };

  if (warp_group == 0) {
    cutlass::arch::warpgroup_reg_dealloc<kBwdProducerRegisters>();
    const int warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
      typename Mainloop::LoadState state;
      if constexpr (kPersistent) {
        typename Mainloop::Work work;
        int with_work = 0;
        for (int count = 0, tile = static_cast<int>(blockIdx.x);; ++count) {
          const bool end = tile >= params.tiles;
          TileRing::publish(smem.tile_ring, count, end ? -1 : tile);
          if (end) break;
          if (Mainloop::make_work(params, tile, work)) {
            Mainloop::load(params, smem, pipeline, pipeline_do, work, with_work++, state);
          }
          tile = atomicAdd(params.base.workspace.tile_counter, 1) + static_cast<int>(gridDim.x);
        }
      } else {
        Mainloop::load(params, smem, pipeline, pipeline_do, only_work, 0, state);
      }
    }
    if (warp == Mainloop::kDqWriterWarp) {
      Mainloop::release_dq_buffers();
      for_each_tile([&](const auto& work, int) { Mainloop::store_dq(params, smem, work); });
    }
    return;
  }

  cutlass::arch::warpgroup_reg_alloc<kBwdConsumerRegisters>();
  const int thread = threadIdx.x - 128;
  typename Mainloop::ConsumeState state;
  for_each_tile([&](const auto& work, int) {
    typename Layouts::TiledMmadKV mma_dkv;
    Tensor acc_dk = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});  // (MMA, 1, 1) fp32
    Tensor acc_dv = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});
    clear(acc_dk);
    clear(acc_dv);
    Mainloop::consume(params, smem, pipeline, pipeline_do, work, thread, acc_dk, acc_dv, state);
    // This thread's accesses to the K / V buffers are done (its warpgroup's wgmmas have completed), and
    // ordered before the next tile's TMA writes there (async proxy): right away where the epilogue stages
    // in the dS buffer, so the next K and V load under it, else once the epilogue has read its staging.
    auto release_key_buffers = [&] {
      cutlass::arch::fence_view_async_shared();
      smem.kv_empty.arrive();
    };
    if constexpr (Layouts::kEpilogueInDs) release_key_buffers();

    const std::int64_t k_row0 = p.k_start(work.batch) + work.n0;
    Tensor gdK =
        make_tensor(make_gmem_ptr(static_cast<Element*>(p.dk) + work.batch * p.dk_strides.batch +
                                  k_row0 * p.dk_strides.row + work.head_kv * p.dk_strides.head),
                    Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_stride(p.dk_strides.row, _1{}));  // (N, D)
    Tensor gdV =
        make_tensor(make_gmem_ptr(static_cast<Element*>(p.dv) + work.batch * p.dv_strides.batch +
                                  k_row0 * p.dv_strides.row + work.head_kv * p.dv_strides.head),
                    Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_stride(p.dv_strides.row, _1{}));  // (N, D)
    Epilogue::store(smem, acc_dk, acc_dv, p.scale, gdK, gdV, work.key_rows - work.n0, thread);
    if constexpr (!Layouts::kEpilogueInDs) release_key_buffers();
  });
#endif
}

}  // namespace flashattn::cuda::sm90
