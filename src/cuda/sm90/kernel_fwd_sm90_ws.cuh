// flashattn — the Hopper forward kernel, warp-specialised: warpgroup 0 produces (one thread issues every
// TMA load, the warpgroup gives most of its registers away with setmaxnreg), warpgroups 1.. consume
// (wgmma, softmax, epilogue; each takes 240 registers). One CTA computes BLOCK_M query rows of one
// (batch, head) against every key tile those rows keep; masked-out key tiles are never loaded.
//
// The kernel body exists only in the sm_90a pass (wgmma and setmaxnreg are sm_90a instructions); other
// arch passes compile an empty kernel, which dispatch never launches (sm90 keys run on sm90 devices only).
#pragma once

#include <cutlass/arch/reg_reconfig.h>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/common/block_info.cuh"
#include "cuda/common/mask.cuh"
#include "cuda/sm90/epilogue_fwd_sm90.cuh"
#include "cuda/sm90/layouts_fwd_sm90.cuh"
#include "cuda/sm90/mainloop_fwd_sm90_tma_wgmma.cuh"
#include "cuda/sm90/params_fwd_sm90.cuh"
#include "cuda/sm90/primitives_sm90.cuh"
#include "cuda/sm90/tile_scheduler_sm90.hpp"

namespace flashattn::cuda::sm90 {

/// Registers per thread after setmaxnreg: the producer needs a handful for addresses and loop state; the
/// consumers hold O, S and P. 24 * 128 + 240 * 256 = 64512 of the SM's 65536 (one CTA per SM).
inline constexpr int kProducerRegisters = 24;
inline constexpr int kConsumerRegisters = 240;

template <class Element, int kHeadDim>
__global__ void __launch_bounds__(FwdLayoutsSm90<Element, kHeadDim>::kThreads, 1)
    fwd_sm90_kernel(const __grid_constant__ FwdParamsSm90<Element, kHeadDim> params) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Layouts = FwdLayoutsSm90<Element, kHeadDim>;
  using Mainloop = FwdMainloopSm90<Element, kHeadDim>;
  using Epilogue = FwdEpilogueSm90<Element, kHeadDim>;
  using Pipeline = typename Layouts::Pipeline;
  using Scheduler = SingleTileScheduler;
  constexpr int kBlockM = Layouts::kBlockM;
  constexpr int kBlockN = Layouts::kBlockN;
  static_assert(Layouts::kConsumerWarpGroups == 2,
                "two consumer warpgroups: the register split above assumes 384 threads");
  static_assert(kProducerRegisters * 128 + kConsumerRegisters * Layouts::kConsumerThreads <= 65536,
                "setmaxnreg cannot hand out more registers than the SM has");
  static_assert(kProducerRegisters % 8 == 0 && kConsumerRegisters % 8 == 0,
                "setmaxnreg counts are multiples of 8 in [24, 256]");
  using namespace cute;

  extern __shared__ __align__(1024) char smem_buffer[];
  auto& smem = *reinterpret_cast<typename Layouts::SharedStorage*>(smem_buffer);
  const ForwardParams& p = params.base.problem;

  const Scheduler::Tile tile = Scheduler::tile(params.base);
  const BlockInfo info(p, tile.batch, tile.head);
  typename Mainloop::Work work;
  work.row0 = tile.m_block * kBlockM;
  if (work.row0 >= info.seqlen_q) return;  // varlen: this sequence is shorter than the longest (uniform)
  work.q_rows = min(kBlockM, info.seqlen_q - work.row0);
  work.seqlen_k = info.seqlen_k;
  const KeyRange range(p, info.seqlen_q, info.seqlen_k);
  // Row intervals grow with the row, so the block needs keys [begin(first row), end(last row)).
  work.n_begin = range.key_begin(work.row0) / kBlockN;
  work.n_end = (range.key_end(work.row0 + work.q_rows - 1) + kBlockN - 1) / kBlockN;
  work.q_row_offset = p.q_start(info.batch);
  work.k_row_offset = p.k_start(info.batch);
  work.tma_batch = p.is_varlen() ? 0 : info.batch;
  work.head = info.head;
  work.head_kv = info.head_kv;
  work.slope_log2 =
      params.base.has_alibi ? p.alibi_slopes[info.batch * p.alibi_batch_stride + info.head] * kLog2e : 0.0f;

  const int warp_group = cutlass::canonical_warp_group_idx();
  typename Pipeline::Params pipeline_params;
  pipeline_params.transaction_bytes = Layouts::kTmaBytesKV;
  pipeline_params.role =
      warp_group == 0 ? Pipeline::ThreadCategory::Producer : Pipeline::ThreadCategory::Consumer;
  pipeline_params.is_leader = threadIdx.x == 0;
  pipeline_params.num_consumers = Layouts::kConsumerThreads;
  if (threadIdx.x == 0) smem.barrier_q.init(1);
  // Warp 0 initialises the stage barriers (and fences their initialisation); the CTA barrier publishes
  // every barrier before first use.
  Pipeline pipeline_k(smem.pipeline_k, pipeline_params, Shape<_1, _1, _1>{});
  Pipeline pipeline_v(smem.pipeline_v, pipeline_params, Shape<_1, _1, _1>{});
  __syncthreads();

  if (warp_group == 0) {
    cutlass::arch::warpgroup_reg_dealloc<kProducerRegisters>();
    if (threadIdx.x == 0) {
      auto write = cutlass::make_producer_start_state<Pipeline>();
      Mainloop::load(params, smem, pipeline_k, pipeline_v, write, work);
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<kConsumerRegisters>();
    const int thread = threadIdx.x - 128;
    typename Layouts::TiledMmaPV mma_pv;
    Tensor tOrO =
        partition_fragment_C(mma_pv, Shape<Int<kBlockM>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_N) fp32
    clear(tOrO);
    typename Mainloop::Softmax softmax(params.base.softmax_scale_log2);
    typename Mainloop::PipelineState read;
    Mainloop::consume(params, smem, pipeline_k, pipeline_v, read, work, range, thread, tOrO, softmax);

    float lse[Mainloop::kRowsPerThread];
    Tensor tOrO_rc = gmma_acc_rowcol(tOrO);
    softmax.finalize(tOrO_rc, lse);
    Tensor gO = make_tensor(make_gmem_ptr(static_cast<Element*>(p.out) + info.out_offset(p, work.row0)),
                            Shape<Int<kBlockM>, Int<kHeadDim>>{},
                            make_stride(p.out_strides.row, _1{}));  // (BLOCK_M, HEAD_DIM)
    float* lse_out = p.lse != nullptr ? p.lse + info.lse_offset(p, work.row0) : nullptr;
    Epilogue::store(smem, tOrO, lse, gO, lse_out, work.q_rows, thread, warp_group - 1);
  }
#endif
}

}  // namespace flashattn::cuda::sm90
