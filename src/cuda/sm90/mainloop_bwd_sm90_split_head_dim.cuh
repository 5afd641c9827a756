// flashattn — the consumers of the Hopper backward when the two warpgroups split the head dim (D = 256;
// layouts_bwd_sm90_split_head_dim.cuh has the products). Per step of BLOCK_M = 64 query rows, warpgroup w
// (rows r_w = [32 w, 32 w + 32) of the step, head-dim columns h_w):
//   Sᵀ[:, r_w] = K·Q[r_w]ᵀ and dPᵀ[:, r_w] = V·dO[r_w]ᵀ, issued together; P = exp2(t − lse) once Sᵀ has
//   landed (t: the forward's log2-domain score with mask, ALiBi, softcap), Pᵀ into shared memory; then
//   barrier kPReady (every row of Pᵀ is there) and dV[:, h_w] += Pᵀ·dO[:, h_w], which runs under
//   dSᵀ = P ∘ (dPᵀ − D) [∘ (1 − tanh²) with softcap] into shared memory; barrier kdSReady; then dQ slice 0
//   of h_w (dS·K), dK[:, h_w] += dSᵀ·Q[:, h_w], and dQ slice 1, each slice staged for the dQ writer (slice
//   0 while dK runs, slice 1 under the next step's Sᵀ and dPᵀ). dO is released once dV has landed (after the
//   dS barrier), so the next step's dO (one stage) loads under the rest of the step.
// Both warpgroups run the softmax and dS phases at once, each on its own rows; nothing crosses between
// them but Pᵀ and dSᵀ.
//
// Buffers: Pᵀ and dSᵀ are double-buffered by step parity. Buffer s % 2 was last read in step s − 2, by
// wgmmas each warpgroup waited for before leaving that step; its writers in step s have passed step
// s − 1's kdSReady, which the other warpgroup reached only after leaving step s − 2. A warpgroup's dQ
// block is handed over per slice (kDqEmpty / kDqFull, as with the keys split).
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "cuda/sm90/mainloop_bwd_sm90_tma_wgmma.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
template <class AccDK, class AccDV>
__device__ void BwdMainloopSm90<Element, kHeadDim>::consume_split_head_dim(
    const Params& params, typename Layouts::SharedStorage& smem, Pipeline& pipeline, PipelinedO& pipeline_do,
    const Work& work, int thread, AccDK& acc_dk, AccDV& acc_dv, State& read, StatedO& read_do, int kv_phase) {
  using namespace cute;
  const BwdKernelParams& base = params.base;
  const BackwardParams& p = base.problem;
  const int steps = work.steps();
  if (steps <= 0) return;

  Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});  // (M, D, PIPE)
  Tensor sdO = make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutdO{});  // (M, D, 1)
  Tensor sQt = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQt{});  // (D, M, PIPE)
  Tensor sdOt = make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutdOt{});  // (D, M, 1)
  Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});         // (N, D)
  Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutK{});         // (N, D)
  Tensor sKt = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutKt{});       // (D, N)
  Tensor sPt = make_tensor(make_smem_ptr(smem.pt.data()), typename Layouts::SmemLayoutPt{});      // (N, M, 2)
  Tensor sdSt = make_tensor(make_smem_ptr(smem.dst.data()), typename Layouts::SmemLayoutPt{});    // (N, M, 2)
  Tensor sdS = make_tensor(make_smem_ptr(smem.dst.data()), typename Layouts::SmemLayoutP{});      // (M, N, 2)

  // Sᵀ and dPᵀ: (N, M) from K / V (A) and Q / dO (B); this warpgroup's 32 query rows.
  typename Layouts::TiledMmaSdP mma_sdp;
  auto thr_sdp = mma_sdp.get_thread_slice(thread);
  Tensor tSrK = thr_sdp.partition_fragment_A(sK);    // (MMA, MMA_N, MMA_K) descriptors
  Tensor tSrV = thr_sdp.partition_fragment_A(sV);    // (MMA, MMA_N, MMA_K)
  Tensor tSrQ = thr_sdp.partition_fragment_B(sQ);    // (MMA, MMA_M, MMA_K, PIPE)
  Tensor tSrdO = thr_sdp.partition_fragment_B(sdO);  // (MMA, MMA_M, MMA_K, 1)
  Tensor tSrS = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});   // (MMA, 1, 1) fp32
  Tensor tSrdP = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});  // (MMA, 1, 1) fp32
  Tensor scores = gmma_acc_rowcol(tSrS);  // (ROWS = keys, COLS = query rows)
  Tensor dps = gmma_acc_rowcol(tSrdP);
  // (key, query row) within the tile of each score this thread holds, as a (rows, cols) view.
  Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBlockN>, Int<kBlockM>>{}));
  Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));
  // Pᵀ or dSᵀ registers -> shared memory.
  Tensor rPdS = make_fragment_like<Element>(tSrS);
  auto copy_pds = make_tiled_copy_C(typename Layouts::SmemCopyAtomPdS{}, mma_sdp);
  auto thr_copy_pds = copy_pds.get_slice(thread);
  Tensor tPrPdS = thr_copy_pds.retile_S(rPdS);
  Tensor tPsPt = thr_copy_pds.partition_D(sPt);    // (CPY, CPY_N, CPY_M, 2)
  Tensor tPsdSt = thr_copy_pds.partition_D(sdSt);  // (CPY, CPY_N, CPY_M, 2)

  // dV and dK: (N, D), this warpgroup's half of the head dim, from Pᵀ / dSᵀ (A) and dOᵀ / Qᵀ (B).
  typename Layouts::TiledMmadKV mma_dkv;
  auto thr_dkv = mma_dkv.get_thread_slice(thread);
  Tensor tdVrPt = thr_dkv.partition_fragment_A(sPt);    // (MMA, MMA_N, MMA_K, 2)
  Tensor tdKrdSt = thr_dkv.partition_fragment_A(sdSt);  // (MMA, MMA_N, MMA_K, 2)
  Tensor tdVrdOt = thr_dkv.partition_fragment_B(sdOt);  // (MMA, MMA_D, MMA_K, 1)
  Tensor tdKrQt = thr_dkv.partition_fragment_B(sQt);    // (MMA, MMA_D, MMA_K, PIPE)

  // dQ: (M, kDqCols) slices of this warpgroup's half of the head dim, from dS (A) and Kᵀ (B), staged into
  // the warpgroup's block of the dQ buffer.
  constexpr int kDqCols = Layouts::kDqCols;
  const int warp_group = thread / 128;
  typename Layouts::TiledMmadQ mma_dq;
  auto thr_dq = mma_dq.get_thread_slice(thread % 128);
  Tensor tdQrdS = thr_dq.partition_fragment_A(sdS);  // (MMA, MMA_M, MMA_K, 2)
  auto dq_slice_b = [&](int slice) {  // (MMA, 1, MMA_K) descriptors of slice `slice` of the half
    return thr_dq.partition_fragment_B(local_tile(sKt, Shape<Int<kDqCols>, Int<kBlockN>>{},
                                                  make_coord(warp_group * Layouts::kDqSlices + slice, _0{})));
  };
  Tensor tdQrdQ = partition_fragment_C(mma_dq, Shape<Int<kBlockM>, Int<kDqCols>>{});  // fp32
  const std::uint32_t dq_block = cute::cast_smem_ptr_to_uint(
      smem.dq.data() + warp_group * cosize_v<typename Layouts::SmemLayoutdQWarpGroup>);
  // Hands the landed slice to the dQ writer once it has read the previous one.
  auto stage_dq = [&] {
    cutlass::arch::NamedBarrier::sync(kDqBarrierThreads,
                                      static_cast<std::uint32_t>(BwdBarrier::kDqEmpty) + warp_group);
    // The address base from a fresh thread index: not hoisted, so not held across the steps.
    stage_dq_keys_split<kDqCols>(tdQrdQ, dq_block, static_cast<std::uint32_t>(thread_index_in_loop()) % 128);
    cutlass::arch::fence_view_async_shared();  // the stores, seen by the TMA unit (async proxy)
    dq_barrier_arrive(BwdBarrier::kDqFull, warp_group);
  };

  start_consuming(params, smem, work, thread,
                  kv_phase);  // each step stages the next step's lse and D before kdSReady

  // Step s's last dQ slice is staged in step s + 1, once that step's Sᵀ has landed (dPᵀ runs under the
  // staging): the tensor cores go from one step's products to the next without waiting for the staging (and
  // for the dQ writer to have read slice 0). The slice's product itself is waited for within its step: left
  // in flight across the loop's back edge (with dK), it made ptxas serialise every wgmma (C7514).
  static_assert(Layouts::kDqSlices == 2, "slice 0 is staged within its step, slice 1 in the next one");
  auto step = [&](int s, StepCoord at, StepCoord next, auto kind) __attribute__((always_inline)) {
    constexpr StepKind kKind = decltype(kind)::value;
    const int head = at.head;
    const int row0 = at.m_block * kBlockM;
    const int buffer = s & 1;
    const float* lse_log2 = smem.lse_log2[buffer];  // by query row of the block
    const float* dsum = smem.dsum[buffer];

    // Sᵀ is issued before dO is waited for: dO has one stage, loaded from the step before's dV on, and is
    // the later of the two to land. The last query block of a varlen sequence: Q and dO zeroed past the
    // sequence end.
    const bool rows_past_end = p.is_varlen() && row0 + kBlockM > work.seqlen_q;
    // Waits for a query-side tile's stage, zeroes its rows past the sequence end, issues its product.
    auto wait_and_issue = [&](auto& tile_pipeline, const auto& state, auto& tile, const auto& keys_operand,
                              const auto& tile_operand, auto& acc) __attribute__((always_inline)) {
      tile_pipeline.consumer_wait(state);
      const int tile_stage = state.index();
      if (rows_past_end) {
        Tensor tile_of_stage = tile(_, _, tile_stage);
        zero_rows(tile_of_stage, work.seqlen_q - row0, thread);
        publish_shared_writes();
      }
      gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_sdp, keys_operand, tile_operand(_, _, _, tile_stage), acc);
      return tile_stage;
    };
    const int stage = wait_and_issue(pipeline, read, sQ, tSrK, tSrQ, tSrS);
    const int stage_do = wait_and_issue(pipeline_do, read_do, sdO, tSrV, tSrdO, tSrdP);
    const float next_stat = s + 1 < steps ? load_stat(params, work, next, thread) : 0.0f;

    if constexpr (kKind == StepKind::softcap) {
      // dS = P ∘ (1 - tanh²) ∘ (dP - D): the factor is folded into dP - D as the scores are transformed.
      gmma_wait<0>(tSrS, tSrdP);
      fold_softcap_chain(base, scores, dps, tScS_rc, dsum);
    } else {
      gmma_wait<1>(tSrS);  // Sᵀ landed (wgmma groups complete in issue order); dPᵀ still runs
    }
    if (s > 0) stage_dq();  // the step before's last slice
    scores_to_p<kKind>(params, work, head, row0, scores, tScS_rc, lse_log2);
    convert_fragment_into(tSrS, rPdS);
    copy(copy_pds, tPrPdS, tPsPt(_, _, _, buffer));
    publish_shared_writes(BwdBarrier::kPReady);  // Pᵀ of all BLOCK_M rows
    // dV[:, h] += Pᵀ·dO[:, h] runs while dS is computed.
    gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdVrPt(_, _, _, buffer), tdVrdOt(_, _, _, stage_do),
                                            acc_dv);

    if constexpr (kKind != StepKind::softcap) gmma_wait<1>(tSrdP);  // dPᵀ landed; dV still runs
    ds_from_p<kKind>(scores, dps, tScS_rc, dsum);
    convert_fragment_into(tSrdP, rPdS);
    copy(copy_pds, tPrPdS, tPsdSt(_, _, _, buffer));
    if (s + 1 < steps) store_stat(smem, s + 1, thread, next_stat);
    publish_shared_writes(BwdBarrier::kdSReady);  // dSᵀ of all BLOCK_M rows (and the next step's lse and D)
    // dO is released as soon as its last reader has landed: dV, which ran under the dS phase. The next
    // step's dO (one stage) loads from here, and its wait at the step's start was the consumers' largest
    // stall (ncu, session 23: 11% of the samples).
    gmma_wait<0>(acc_dv);
    pipeline_do.consumer_release(read_do);
    ++read_do;

    // dQ slice 0, then dK, then slice 1: slice 0 is staged while dK runs, slice 1 in the next step.
    gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dq, tdQrdS(_, _, _, buffer), dq_slice_b(0), tdQrdQ);
    gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdKrdSt(_, _, _, buffer), tdKrQt(_, _, _, stage),
                                            acc_dk);
    gmma_wait<1>(tdQrdQ);  // dQ slice 0 landed (groups complete in issue order); dK runs
    stage_dq();
    gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dq, tdQrdS(_, _, _, buffer), dq_slice_b(1), tdQrdQ);
    gmma_wait<0>(tdQrdQ, acc_dk);
    pipeline.consumer_release(read);  // this thread is done with the stage's Q
    ++read;
  };

  run_steps(params, work, step);
  stage_dq();  // the last step's slice 1
}

}  // namespace flashattn::cuda::sm90
