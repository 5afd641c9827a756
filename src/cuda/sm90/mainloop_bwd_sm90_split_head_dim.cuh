// flashattn — the consumers of the Hopper backward when the two warpgroups split the head dim (D = 256;
// layouts_bwd_sm90_split_head_dim.cuh has the products). Per step of BLOCK_M = 32 query rows:
//   warpgroup 0: Sᵀ = K·Qᵀ, t = the forward's log2-domain score (mask, ALiBi, softcap), Pᵀ = exp2(t − lse)
//                into shared memory twice: in the element type for dV, and in fp32 (times 1 − tanh² with
//                softcap) for warpgroup 1;
//   warpgroup 1: dPᵀ = V·dOᵀ (under warpgroup 0's Sᵀ), then, once P is there, dSᵀ = P ∘ (dPᵀ − D) into
//                shared memory;
//   both:        dV[:, h] += Pᵀ·dO[:, h] (issued as soon as P is in shared memory, it runs under the dS
//                arithmetic), then dQᵀ[h, :] = K[:, h]ᵀ·dSᵀ and dK[:, h] += dSᵀ·Q[:, h] for the warpgroup's
//                head-dim columns h, and dQᵀ is staged (transposed) for the dQ writer as with the keys split
//                while dK still runs.
// Two all-consumer barriers a step: kPReady (P published; warpgroup 1's dPᵀ has landed by then too) and
// kdSReady (dS and the next step's lse / D published).
//
// Buffers: Pᵀ, the fp32 P and dSᵀ are double-buffered by step parity. Buffer s % 2 was last read in step
// s − 2, by wgmmas each warpgroup waited for before leaving that step; its writer in step s has passed
// step s − 1's kdSReady (warpgroup 0 writing P) or step s's kPReady (warpgroup 1 writing dS), where the
// other warpgroup was already in step s − 1 or s, so done with step s − 2.
#pragma once

#include <cmath>

#include <cute/tensor.hpp>

#include "cuda/sm90/mainloop_bwd_sm90_tma_wgmma.cuh"

namespace flashattn::cuda::sm90 {

template <class Element, int kHeadDim>
template <class AccDK, class AccDV>
__device__ void BwdMainloopSm90<Element, kHeadDim>::consume_split_head_dim(
    const Params& params, typename Layouts::SharedStorage& smem, Pipeline& pipeline, const Work& work,
    int thread, AccDK& acc_dk, AccDV& acc_dv) {
  using namespace cute;
  const BwdKernelParams& base = params.base;
  const BackwardParams& p = base.problem;
  const int steps = work.steps();
  if (steps <= 0) return;
  const int warp_group = thread / 128;  // 0: Sᵀ and P; 1: dPᵀ and dS
  const int wg_thread = thread % 128;
  constexpr int kHalf = Layouts::kHeadDimPerWarpGroup;

  Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});    // (M, D, PIPE)
  Tensor sQt = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQt{});  // (D, M, PIPE)
  Tensor sdOt =
      make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutQt{});         // (D, M, PIPE)
  Tensor sKt = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutKt{});   // (D, N)
  Tensor sPt = make_tensor(make_smem_ptr(smem.pt.data()), typename Layouts::SmemLayoutPt{});  // (N, M, 2)
  Tensor sdSt = make_tensor(make_smem_ptr(smem.dst.data()), typename Layouts::SmemLayoutPt{});  // (N, M, 2)
  Tensor sdS = make_tensor(make_smem_ptr(smem.dst.data()), typename Layouts::SmemLayoutP{});    // (M, N, 2)

  // Sᵀ (warpgroup 0) or dPᵀ (warpgroup 1): (N, M) from K / V (A) and Q / dO (B), same layouts, so one
  // partition serves both with the warpgroup's own shared-memory bases.
  typename Layouts::TiledMmaSdP mma_sdp;
  auto thr_sdp = mma_sdp.get_thread_slice(wg_thread);
  Tensor tSrA = thr_sdp.partition_fragment_A(
      make_tensor(make_smem_ptr(warp_group == 0 ? smem.k.data() : smem.v.data()),
                  typename Layouts::SmemLayoutK{}));  // (MMA, MMA_N, MMA_K) descriptors
  Tensor tSrB = thr_sdp.partition_fragment_B(
      make_tensor(make_smem_ptr(warp_group == 0 ? smem.q.data() : smem.dout.data()),
                  typename Layouts::SmemLayoutQ{}));  // (MMA, MMA_M, MMA_K, PIPE)
  Tensor tSrS = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});  // (MMA, 1, 1) fp32
  Tensor scores = gmma_acc_rowcol(tSrS);  // (ROWS = keys, COLS = query rows): Sᵀ, or dPᵀ in warpgroup 1
  Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBlockN>, Int<kBlockM>>{}));
  Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));
  constexpr int kRows = decltype(size<0>(tScS_rc))::value;
  constexpr int kCols = decltype(size<1>(tScS_rc))::value;
  static_assert(kRows * kCols == Layouts::kScoresPerThread);
  // Pᵀ or dSᵀ registers -> shared memory.
  Tensor rPdS = make_fragment_like<Element>(tSrS);
  auto copy_pds = make_tiled_copy_C(typename Layouts::SmemCopyAtomPdS{}, mma_sdp);
  auto thr_copy_pds = copy_pds.get_slice(wg_thread);
  Tensor tPrPdS = thr_copy_pds.retile_S(rPdS);
  Tensor tPsPt = thr_copy_pds.partition_D(sPt);    // (CPY, CPY_N, CPY_M, 2)
  Tensor tPsdSt = thr_copy_pds.partition_D(sdSt);  // (CPY, CPY_N, CPY_M, 2)

  // dV and dK: (N, D) over both warpgroups, each its half of the head dim, from Pᵀ / dSᵀ (A) and dOᵀ / Qᵀ.
  typename Layouts::TiledMmadKV mma_dkv;
  auto thr_dkv = mma_dkv.get_thread_slice(thread);
  Tensor tdVrPt = thr_dkv.partition_fragment_A(sPt);    // (MMA, MMA_N, MMA_K, 2)
  Tensor tdKrdSt = thr_dkv.partition_fragment_A(sdSt);  // (MMA, MMA_N, MMA_K, 2)
  Tensor tdVrdOt = thr_dkv.partition_fragment_B(sdOt);  // (MMA, MMA_D, MMA_K, PIPE)
  Tensor tdKrQt = thr_dkv.partition_fragment_B(sQt);    // (MMA, MMA_D, MMA_K, PIPE)

  // dQᵀ: (D/2, M) of this warpgroup's columns, from Kᵀ (A) and dSᵀ read as (M, N) (B), staged transposed
  // into the warpgroup's half of the dQ buffer.
  typename Layouts::TiledMmadQt mma_dq;
  auto thr_dq = mma_dq.get_thread_slice(wg_thread);
  Tensor tdQrKt = thr_dq.partition_fragment_A(local_tile(
      sKt, Shape<Int<kHalf>, Int<kBlockN>>{}, make_coord(warp_group, _0{})));        // (MMA, MMA_D, MMA_K)
  Tensor tdQrdS = thr_dq.partition_fragment_B(sdS);                                  // (MMA, MMA_M, MMA_K, 2)
  Tensor tdQrdQt = partition_fragment_C(mma_dq, Shape<Int<kHalf>, Int<kBlockM>>{});  // fp32
  Tensor sdQt = make_tensor(
      make_smem_ptr(smem.dq.data() + warp_group * cosize_v<typename Layouts::SmemLayoutdQWarpGroup>),
      typename Layouts::SmemLayoutdQtWarpGroup{});  // (D/2, M)
  auto copy_dq = make_tiled_copy_C(typename Layouts::SmemCopyAtomdQt{}, mma_dq);
  auto thr_copy_dq = copy_dq.get_slice(wg_thread);
  Tensor tdQsdQt = thr_copy_dq.partition_D(sdQt);

  start_consuming(params, smem, work, thread);  // each step stages the next step's lse and D before kdSReady

  State read;
  auto step = [&](int s, StepCoord at, StepCoord next, auto kind) __attribute__((always_inline)) {
    constexpr StepKind kKind = decltype(kind)::value;
    const int head = at.head;
    const int row0 = at.m_block * kBlockM;
    const int buffer = s & 1;
    const float* lse_log2 = smem.lse_log2[buffer];  // by query row of the block
    const float* dsum = smem.dsum[buffer];
    auto row_of = [&](int c) { return get<1>(tScS_rc(0, c)); };  // query row (in the block) of column c
    float* p_fp32 = &smem.p_fp32[buffer][0][wg_thread];          // value i at p_fp32[i * 128]

    pipeline.consumer_wait(read);
    const int stage = read.index();
    // The last query block of a varlen sequence: zero Q and dO past the sequence end.
    if (p.is_varlen() && row0 + kBlockM > work.seqlen_q) {
      Tensor sQ_stage = sQ(_, _, stage);
      Tensor sdO_stage =
          make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutQ{})(_, _, stage);
      zero_rows(sQ_stage, work.seqlen_q - row0, thread);
      zero_rows(sdO_stage, work.seqlen_q - row0, thread);
      publish_shared_writes();
    }
    gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_sdp, tSrA, tSrB(_, _, _, stage), tSrS);
    const float next_stat = s + 1 < steps ? load_stat(params, work, next, thread) : 0.0f;
    gmma_wait<0>(tSrS);

    if (warp_group == 0) {
      // P from Sᵀ; with softcap the fp32 copy for dS carries the chain rule's 1 − tanh².
      if constexpr (kKind == StepKind::softcap) {
        float chain[kRows][kCols];
        CUTE_UNROLL
        for (int r = 0; r < kRows; ++r) {
          CUTE_UNROLL
          for (int c = 0; c < kCols; ++c) {
            const float th = softcap_tanh(scores(r, c) * base.softcap_pre);
            chain[r][c] = 1.0f - th * th;
            scores(r, c) = th * base.score_to_log2;
          }
        }
        scores_to_p<kKind>(params, work, head, row0, scores, tScS_rc, lse_log2);
        CUTE_UNROLL
        for (int r = 0; r < kRows; ++r) {
          CUTE_UNROLL
          for (int c = 0; c < kCols; ++c) p_fp32[(r * kCols + c) * 128] = scores(r, c) * chain[r][c];
        }
      } else {
        scores_to_p<kKind>(params, work, head, row0, scores, tScS_rc, lse_log2);
        CUTE_UNROLL
        for (int r = 0; r < kRows; ++r) {
          CUTE_UNROLL
          for (int c = 0; c < kCols; ++c) p_fp32[(r * kCols + c) * 128] = scores(r, c);
        }
      }
      convert_fragment_into(tSrS, rPdS);
      copy(copy_pds, tPrPdS, tPsPt(_, _, _, buffer));
    }
    publish_shared_writes(BwdBarrier::kPReady);  // Pᵀ (for the wgmmas) and the fp32 P (for warpgroup 1)
    // dV[:, h] += Pᵀ·dO[:, h] runs while warpgroup 1 computes dS.
    gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdVrPt(_, _, _, buffer), tdVrdOt(_, _, _, stage),
                                            acc_dv);

    if (warp_group == 1) {
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        CUTE_UNROLL
        for (int c = 0; c < kCols; ++c)
          scores(r, c) = p_fp32[(r * kCols + c) * 128] * (scores(r, c) - dsum[row_of(c)]);
      }
      convert_fragment_into(tSrS, rPdS);
      copy(copy_pds, tPrPdS, tPsdSt(_, _, _, buffer));
    }
    if (s + 1 < steps) store_stat(smem, s + 1, thread, next_stat);
    publish_shared_writes(BwdBarrier::kdSReady);  // dSᵀ of the block (and the next step's lse and D)

    gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dq, tdQrKt, tdQrdS(_, _, _, buffer), tdQrdQt);
    gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdKrdSt(_, _, _, buffer), tdKrQt(_, _, _, stage),
                                            acc_dk);
    gmma_wait<1>(tdQrdQt);  // dV and dQᵀ landed (groups complete in issue order); dK runs under the staging
    // Hand dQ to the writer once it has read the previous step's (its reduce-add may still be running).
    cutlass::arch::NamedBarrier::sync(kDqBarrierThreads,
                                      static_cast<std::uint32_t>(BwdBarrier::kDqEmpty) + warp_group);
    copy(copy_dq, thr_copy_dq.retile_S(tdQrdQt), tdQsdQt);  // transposed into (query row, head dim)
    gmma_wait<0>(acc_dv, acc_dk);
    // The fence waits for the stores to complete: after dK's wait, the two waits overlap.
    cutlass::arch::fence_view_async_shared();  // the stores, seen by the TMA unit (async proxy)
    dq_barrier_arrive(BwdBarrier::kDqFull, warp_group);
    pipeline.consumer_release(read);  // this thread is done with the stage's Q and dO
    ++read;
  };

  run_steps(params, work, step);
}

}  // namespace flashattn::cuda::sm90
