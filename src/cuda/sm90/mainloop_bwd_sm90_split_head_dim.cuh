// flashattn — the consumers of the Hopper backward when the two warpgroups split the head dim (D = 256;
// layouts_bwd_sm90_split_head_dim.cuh has the products). Per step of BLOCK_M = 64 query rows, warpgroup w
// (rows r_w = [32 w, 32 w + 32) of the step, head-dim columns h_w):
//   Sᵀ[:, r_w] = K·Q[r_w]ᵀ and dPᵀ[:, r_w] = V·dO[r_w]ᵀ, issued together; P = exp2(t − lse) once Sᵀ has
//   landed (t: the forward's log2-domain score with mask, ALiBi, softcap), Pᵀ into shared memory; then
//   barrier kPReady (every row of Pᵀ is there) and dV[:, h_w] += Pᵀ·dO[:, h_w], which runs under
//   dSᵀ = P ∘ (dPᵀ − D) [∘ (1 − tanh²) with softcap] into shared memory; barrier kdSReady; then
//   dQ[:, h_w] = dS·K[:, h_w] and dK[:, h_w] += dSᵀ·Q[:, h_w]; dQ is added into the workspace's fp32
//   accumulator by this warpgroup's threads (four adjacent columns a reduction) while dK still runs.
// Both warpgroups run the softmax and dS phases at once, each on its own rows; nothing crosses between
// them but Pᵀ and dSᵀ.
//
// Buffers: Pᵀ and dSᵀ are double-buffered by step parity. Buffer s % 2 was last read in step s − 2, by
// wgmmas each warpgroup waited for before leaving that step; its writers in step s have passed step
// s − 1's kdSReady, which the other warpgroup reached only after leaving step s − 2.
//
// dQ with deterministic = true: consumer thread 0 waits for the CTA's turn at the query block (the key
// blocks add in ascending order, see the main loop's header), an all-consumer barrier holds the others
// until then, and after every thread's reductions (barrier) thread 0 fences them and passes the turn on.
#pragma once

#include <cmath>

#include <cuda/atomic>
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
  const BwdWorkspace& ws = base.workspace;
  const int steps = work.steps();
  if (steps <= 0) return;

  Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});      // (M, D, PIPE)
  Tensor sdO = make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutQ{});  // (M, D, PIPE)
  Tensor sQt = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQt{});    // (D, M, PIPE)
  Tensor sdOt =
      make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutQt{});         // (D, M, PIPE)
  Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});     // (N, D)
  Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutK{});     // (N, D)
  Tensor sKt = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutKt{});   // (D, N)
  Tensor sPt = make_tensor(make_smem_ptr(smem.pt.data()), typename Layouts::SmemLayoutPt{});  // (N, M, 2)
  Tensor sdSt = make_tensor(make_smem_ptr(smem.dst.data()), typename Layouts::SmemLayoutPt{});  // (N, M, 2)
  Tensor sdS = make_tensor(make_smem_ptr(smem.dst.data()), typename Layouts::SmemLayoutP{});    // (M, N, 2)

  // Sᵀ and dPᵀ: (N, M) from K / V (A) and Q / dO (B); this warpgroup's 32 query rows.
  typename Layouts::TiledMmaSdP mma_sdp;
  auto thr_sdp = mma_sdp.get_thread_slice(thread);
  Tensor tSrK = thr_sdp.partition_fragment_A(sK);    // (MMA, MMA_N, MMA_K) descriptors
  Tensor tSrV = thr_sdp.partition_fragment_A(sV);    // (MMA, MMA_N, MMA_K)
  Tensor tSrQ = thr_sdp.partition_fragment_B(sQ);    // (MMA, MMA_M, MMA_K, PIPE)
  Tensor tSrdO = thr_sdp.partition_fragment_B(sdO);  // (MMA, MMA_M, MMA_K, PIPE)
  Tensor tSrS = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});   // (MMA, 1, 1) fp32
  Tensor tSrdP = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});  // (MMA, 1, 1) fp32
  Tensor scores = gmma_acc_rowcol(tSrS);  // (ROWS = keys, COLS = query rows)
  Tensor dps = gmma_acc_rowcol(tSrdP);
  // (key, query row) within the tile of each score this thread holds, as a (rows, cols) view.
  Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBlockN>, Int<kBlockM>>{}));
  Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));
  constexpr int kRows = decltype(size<0>(tScS_rc))::value;
  constexpr int kCols = decltype(size<1>(tScS_rc))::value;
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
  Tensor tdVrdOt = thr_dkv.partition_fragment_B(sdOt);  // (MMA, MMA_D, MMA_K, PIPE)
  Tensor tdKrQt = thr_dkv.partition_fragment_B(sQt);    // (MMA, MMA_D, MMA_K, PIPE)

  // dQ: (M, kDqSlice) slices of this warpgroup's half of the head dim, from dS (A) and Kᵀ (B).
  constexpr int kDqSlice = Layouts::kDqSlice;
  const int warp_group = thread / 128;
  typename Layouts::TiledMmadQ mma_dq;
  auto thr_dq = mma_dq.get_thread_slice(thread % 128);
  Tensor tdQrdS = thr_dq.partition_fragment_A(sdS);  // (MMA, MMA_M, MMA_K, 2)
  auto dq_slice_b = [&](int slice) {  // (MMA, 1, MMA_K) descriptors of slice `slice` of the half
    return thr_dq.partition_fragment_B(local_tile(sKt, Shape<Int<kDqSlice>, Int<kBlockN>>{},
                                                  make_coord(warp_group * Layouts::kDqSlices + slice, _0{})));
  };
  Tensor tdQrdQ = partition_fragment_C(mma_dq, Shape<Int<kBlockM>, Int<kDqSlice>>{});  // fp32
  Tensor tdQcdQ = thr_dq.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kDqSlice>>{}));
  // (rows, cols) views: 2 rows 8 apart, each with pairs of adjacent columns (c, c + 1) for even c.
  Tensor dq_rc = gmma_acc_rowcol(tdQrdQ);
  Tensor cdq_rc = make_tensor(tdQcdQ.data(), gmma_acc_rowcol_layout(tdQcdQ.layout()));
  const std::int64_t dq_row_stride = std::int64_t{p.heads} * p.head_dim;

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

    pipeline.consumer_wait(read);
    const int stage = read.index();
    // The last query block of a varlen sequence: zero Q and dO past the sequence end.
    if (p.is_varlen() && row0 + kBlockM > work.seqlen_q) {
      Tensor sQ_stage = sQ(_, _, stage);
      Tensor sdO_stage = sdO(_, _, stage);
      zero_rows(sQ_stage, work.seqlen_q - row0, thread);
      zero_rows(sdO_stage, work.seqlen_q - row0, thread);
      publish_shared_writes();
    }
    gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_sdp, tSrK, tSrQ(_, _, _, stage), tSrS);
    gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_sdp, tSrV, tSrdO(_, _, _, stage), tSrdP);
    const float next_stat = s + 1 < steps ? load_stat(params, work, next, thread) : 0.0f;

    if constexpr (kKind == StepKind::softcap) {
      // dS = P ∘ (1 - tanh²) ∘ (dP - D): the factor is folded into dP - D as the scores are transformed.
      gmma_wait<0>(tSrS, tSrdP);
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        CUTE_UNROLL
        for (int c = 0; c < kCols; ++c) {
          const float th = softcap_tanh(scores(r, c) * base.softcap_pre);
          dps(r, c) = (1.0f - th * th) * (dps(r, c) - dsum[row_of(c)]);
          scores(r, c) = th * base.score_to_log2;
        }
      }
    } else {
      gmma_wait<1>(tSrS);  // Sᵀ landed (wgmma groups complete in issue order); dPᵀ still runs
    }
    scores_to_p<kKind>(params, work, head, row0, scores, tScS_rc, lse_log2);
    convert_fragment_into(tSrS, rPdS);
    copy(copy_pds, tPrPdS, tPsPt(_, _, _, buffer));
    publish_shared_writes(BwdBarrier::kPReady);  // Pᵀ of all BLOCK_M rows
    // dV[:, h] += Pᵀ·dO[:, h] runs while dS is computed.
    gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdVrPt(_, _, _, buffer), tdVrdOt(_, _, _, stage),
                                            acc_dv);

    if constexpr (kKind == StepKind::softcap) {
      CUTE_UNROLL
      for (int i = 0; i < size(dps); ++i) dps(i) *= scores(i);
    } else {
      gmma_wait<1>(tSrdP);  // dPᵀ landed; dV still runs
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        CUTE_UNROLL
        for (int c = 0; c < kCols; ++c) dps(r, c) = scores(r, c) * (dps(r, c) - dsum[row_of(c)]);
      }
    }
    convert_fragment_into(tSrdP, rPdS);
    copy(copy_pds, tPrPdS, tPsdSt(_, _, _, buffer));
    if (s + 1 < steps) store_stat(smem, s + 1, thread, next_stat);
    publish_shared_writes(BwdBarrier::kdSReady);  // dSᵀ of all BLOCK_M rows (and the next step's lse and D)

    // dQ slice 0, then dK, then the other slices: each slice's additions run under the next product.
    // Rows past the sequence end belong to another sequence (or none): their dQ (zero) is not added.
    float* dq = ws.dq_accum + ws.dq_index(p, ws.token(p, work.batch, row0), head) +
                warp_group * Layouts::kHeadDimPerWarpGroup;
    // Lanes 2i and 2i + 1 of a quad hold columns (c, c + 1) and (c + 2, c + 3) of the same two rows: they
    // swap one row's pair, so the even lane adds 4 columns of the first row and the odd lane 4 columns of
    // the second, one 16-byte reduction each.
    const bool even_lane = thread % 2 == 0;
    const int my_row = get<0>(cdq_rc(even_lane ? 0 : 1, 0));
    auto add_dq = [&](int slice) {
      const bool valid = row0 + my_row < work.seqlen_q;
      float* out =
          dq + my_row * dq_row_stride + slice * kDqSlice + get<1>(cdq_rc(0, 0)) - (even_lane ? 0 : 2);
      CUTE_UNROLL
      for (int c = 0; c < size<1>(dq_rc); c += 2) {
        const float give0 = even_lane ? dq_rc(1, c) : dq_rc(0, c);
        const float give1 = even_lane ? dq_rc(1, c + 1) : dq_rc(0, c + 1);
        const float take0 = __shfl_xor_sync(0xffffffffu, give0, 1);
        const float take1 = __shfl_xor_sync(0xffffffffu, give1, 1);
        // The column offset from the thread's first value is a constant: only the thread's base varies.
        float* at = out + (get<1>(cdq_rc(0, c)) - get<1>(cdq_rc(0, 0)));
        if (valid) {
          red_add_f32x4(at, even_lane ? dq_rc(0, c) : take0, even_lane ? dq_rc(0, c + 1) : take1,
                        even_lane ? take0 : dq_rc(1, c), even_lane ? take1 : dq_rc(1, c + 1));
        }
      }
    };
    gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dq, tdQrdS(_, _, _, buffer), dq_slice_b(0), tdQrdQ);
    gmma</*kZeroInit=*/false, /*kWait=*/-1>(mma_dkv, tdKrdSt(_, _, _, buffer), tdKrQt(_, _, _, stage),
                                            acc_dk);
    int* semaphore = nullptr;
    if (p.deterministic) {
      semaphore = ws.semaphore(p, work.batch, head, at.m_block);
      if (thread == 0) {
        const ::cuda::atomic_ref<int, ::cuda::thread_scope_device> turn(*semaphore);
        const int mine = work.n_block - first_key_block(p, work, at.m_block);
        while (turn.load(::cuda::memory_order_acquire) != mine) {
        }
      }
      // The earlier key blocks' additions to this query block are visible.
      cutlass::arch::NamedBarrier::sync(kConsumerThreads, static_cast<std::uint32_t>(BwdBarrier::kConsumers));
    }
    gmma_wait<1>(tdQrdQ);  // dV and dQ slice 0 landed (groups complete in issue order); dK still runs
    add_dq(0);
    CUTE_UNROLL
    for (int slice = 1; slice < Layouts::kDqSlices; ++slice) {
      gmma</*kZeroInit=*/true, /*kWait=*/-1>(mma_dq, tdQrdS(_, _, _, buffer), dq_slice_b(slice), tdQrdQ);
      gmma_wait<0>(tdQrdQ);
      add_dq(slice);
    }
    if (p.deterministic) {
      // Every thread's additions precede the release below.
      cutlass::arch::NamedBarrier::sync(kConsumerThreads, static_cast<std::uint32_t>(BwdBarrier::kConsumers));
      if (thread == 0) {
        __threadfence();
        ::cuda::atomic_ref<int, ::cuda::thread_scope_device>(*semaphore)
            .fetch_add(1, ::cuda::memory_order_release);
      }
    }
    gmma_wait<0>(acc_dv, acc_dk);
    pipeline.consumer_release(read);  // this thread is done with the stage's Q and dO
    ++read;
  };

  run_steps(params, work, step);
}

}  // namespace flashattn::cuda::sm90
