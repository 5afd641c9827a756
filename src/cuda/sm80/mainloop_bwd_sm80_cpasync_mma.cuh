// flashattn — the main loop of the portable backward kernel: with one block of keys K, V resident in shared
// memory, walk every (query head, query block) that sees it and accumulate dK and dV in registers, adding
// each block's dQ contribution into the fp32 accumulator in global memory. Per query block:
//   S = Q·Kᵀ; t = the forward's log2-domain score (scale, softcap, ALiBi, mask); P = exp2(t - lse·log2 e)
//   dP = dO·Vᵀ;  dS = P ∘ (dP - D) [∘ (1 - tanh²) with softcap]
//   dV += Pᵀ·dO;  dK += dSᵀ·Q  (unscaled: the epilogue multiplies dK by the softmax scale);  dQ += dS·K
// P and dS go through shared memory: dV, dK and dQ read them transposed or with other warp splits.
//
// Pipeline (one buffer each for Q and dO): the next block's Q and dO load is issued once dK and dV have
// read the current ones, and lands while dQ = dS·K is computed and added to global memory.
// dQ: each key block's dS·K is added to the fp32 accumulator with atomics, in whatever order the CTAs
// reach a query block. With deterministic = true the CTAs take turns per (batch, head, query block) in
// ascending key block, through a semaphore in the workspace, so the fp32 sums are bitwise reproducible.
// Kinds of step: bulk blocks (every row keeps every key of the block, no score modifier) compute
// P = exp2(s·scale·log2 e - lse) with no mask; masked blocks (a row's key interval or the sequence end
// cuts the block) and every block of a run with ALiBi apply the forward's transform and mask; softcap
// blocks also keep 1 - tanh² for the chain rule.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <cuda/atomic>
#include <cute/tensor.hpp>

#include "cuda/common/bwd_kernel_params.hpp"
#include "cuda/common/fragment.cuh"
#include "cuda/common/mask.cuh"
#include "cuda/common/score_mods.cuh"
#include "cuda/common/softmax.cuh"
#include "cuda/sm80/layouts_bwd_sm80.cuh"
#include "cuda/sm80/mainloop_fwd_sm80_cpasync_mma.cuh"

namespace flashattn::cuda::sm80 {

template <class Element, int kHeadDim, int kHeadDimV>
struct BwdMainloopSm80 {
  using Layouts = BwdLayouts<Element, kHeadDim, kHeadDimV>;
  static constexpr int kBlockM = Layouts::kBlockM;
  static constexpr int kBlockN = Layouts::kBlockN;

  enum class StepKind { bulk, masked, softcap };
  template <StepKind kKind>
  using Step = std::integral_constant<StepKind, kKind>;

  /// The CTA's key block and the query work that sees it.
  struct Work {
    int batch;
    int first_head;  ///< Query heads [first_head, first_head + heads) read this kv head.
    int heads;
    int seqlen_q;
    int seqlen_k;  ///< Keys of the sequence (seqused_k when given).
    int n_block;   ///< The CTA's key block.
    int n0;        ///< First key of the block.
    int m_begin;   ///< Query blocks [m_begin, m_end) hold every row that keeps a key of the block.
    int m_end;
  };

  /// Element offset of row `row` of head `head` of sequence `batch` in an operand with `strides`.
  __device__ __forceinline__ static std::int64_t row_offset(const BackwardParams& p,
                                                            const OperandStrides& strides, int batch, int row,
                                                            int head) {
    return batch * strides.batch + (p.q_start(batch) + row) * strides.row + head * strides.head;
  }

  /// The first key block whose CTA adds into query block `m_block` (core::bwd_first_key_block).
  __device__ __forceinline__ static int first_key_block(const BackwardParams& p, const Work& work,
                                                        int m_block) {
    return core::bwd_first_key_block(m_block, kBlockM, kBlockN, work.seqlen_q, work.seqlen_k, p.window_left);
  }

  /// Accumulates dK and dV ((BLOCK_N, HEAD_DIM), (BLOCK_N, HEAD_DIM_V)), the TiledMmadKV fragments, over the
  /// work's query blocks and
  /// adds dQ into the workspace. On entry K and V of the block are being loaded (their cp.async group is
  /// committed); on exit every cp.async group is complete and no warp reads shared memory any more.
  template <class AccDK, class AccDV>
  __device__ __forceinline__ static void run(const BwdKernelParams& params,
                                             typename Layouts::SharedStorage& smem, const Work& work,
                                             const KeyRange& range, AccDK& acc_dk, AccDV& acc_dv) {
    using namespace cute;
    const BackwardParams& p = params.problem;
    const BwdWorkspace& ws = params.workspace;
    const int tid = threadIdx.x;
    const int blocks_per_head = work.m_end - work.m_begin;
    const int steps = blocks_per_head * work.heads;
    if (steps <= 0) {
      cp_async_wait<0>();
      __syncthreads();  // no thread's K or V copy is still landing where the epilogue stages dK and dV
      return;
    }

    Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQ{});         // (M, D)
    Tensor sdO = make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutdO{});    // (M, Dv)
    Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});         // (N, D)
    Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutV{});         // (N, Dv)
    Tensor sP = make_tensor(make_smem_ptr(smem.p.data()), typename Layouts::SmemLayoutPdS{});       // (M, N)
    Tensor sdS = make_tensor(make_smem_ptr(smem.ds.data()), typename Layouts::SmemLayoutPdS{});     // (M, N)
    Tensor sQt = make_tensor(make_smem_ptr(smem.q.data()), typename Layouts::SmemLayoutQt{});       // (D, M)
    Tensor sdOt = make_tensor(make_smem_ptr(smem.dout.data()), typename Layouts::SmemLayoutdOt{});  // (Dv, M)
    Tensor sKt = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutKt{});       // (D, N)
    Tensor sPt = make_tensor(make_smem_ptr(smem.p.data()), typename Layouts::SmemLayoutPdSt{});     // (N, M)
    Tensor sdSt = make_tensor(make_smem_ptr(smem.ds.data()), typename Layouts::SmemLayoutPdSt{});   // (N, M)

    // Global -> shared (Q and dO of a query block).
    typename Layouts::GmemTiledCopyLoad gmem_copy;
    auto gmem_thr = gmem_copy.get_thread_slice(tid);
    Tensor tQsQ = gmem_thr.partition_D(sQ);  // (CPY, CPY_M, CPY_K)
    Tensor tQcQ = gmem_thr.partition_S(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));
    typename Layouts::GmemTiledCopyLoadV gmem_copy_v;  // the same copy as gmem_copy when Dv = D
    auto gmem_thr_v = gmem_copy_v.get_thread_slice(tid);
    Tensor tQsdO = gmem_thr_v.partition_D(sdO);
    Tensor tQcdO = gmem_thr_v.partition_S(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDimV>>{}));

    // S and dP: (M, N) from Q / dO (A) and K / V (B).
    typename Layouts::TiledMmaSdP mma_sdp;
    auto thr_sdp = mma_sdp.get_thread_slice(tid);
    Tensor tSrQ = thr_sdp.partition_fragment_A(sQ);    // (MMA, MMA_M, MMA_K)
    Tensor tSrK = thr_sdp.partition_fragment_B(sK);    // (MMA, MMA_N, MMA_K)
    Tensor tSrdO = thr_sdp.partition_fragment_A(sdO);  // (MMA, MMA_M, MMA_Kv)
    Tensor tSrV = thr_sdp.partition_fragment_B(sV);    // (MMA, MMA_N, MMA_Kv)
    auto copy_sdp_a = make_tiled_copy_A(typename Layouts::SmemCopyAtom{}, mma_sdp);
    auto copy_sdp_b = make_tiled_copy_B(typename Layouts::SmemCopyAtom{}, mma_sdp);
    Tensor tSsQ = copy_sdp_a.get_slice(tid).partition_S(sQ);
    Tensor tSsdO = copy_sdp_a.get_slice(tid).partition_S(sdO);
    Tensor tSsK = copy_sdp_b.get_slice(tid).partition_S(sK);
    Tensor tSsV = copy_sdp_b.get_slice(tid).partition_S(sV);
    // (row, col) within the block of each score the thread holds, as a (rows, cols) view.
    Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kBlockN>>{}));
    Tensor tScS_rc = make_tensor(tScS.data(), acc_rowcol_layout(tScS.layout()));  // (ROWS, COLS)
    constexpr int kRows = decltype(size<0>(tScS_rc))::value;
    // P and dS registers -> shared memory.
    auto copy_pds = make_tiled_copy_C(typename Layouts::SmemCopyAtomC{}, mma_sdp);
    Tensor tPsP = copy_pds.get_slice(tid).partition_D(sP);
    Tensor tPsdS = copy_pds.get_slice(tid).partition_D(sdS);

    // dV and dK: (N, D) from Pᵀ / dSᵀ (A) and dOᵀ / Qᵀ (B), all read transposed.
    typename Layouts::TiledMmadKV mma_dkv;
    auto thr_dkv = mma_dkv.get_thread_slice(tid);
    Tensor tKVrPt = thr_dkv.partition_fragment_A(sPt);    // (MMA, MMA_N, MMA_K = BLOCK_M / 16)
    Tensor tKVrdOt = thr_dkv.partition_fragment_B(sdOt);  // (MMA, MMA_Dv, MMA_K)
    Tensor tKVrQt = thr_dkv.partition_fragment_B(sQt);    // (MMA, MMA_D, MMA_K)
    auto copy_dkv_a = make_tiled_copy_A(typename Layouts::SmemCopyAtomTransposed{}, mma_dkv);
    auto copy_dkv_b = make_tiled_copy_B(typename Layouts::SmemCopyAtomTransposed{}, mma_dkv);
    Tensor tKVsPt = copy_dkv_a.get_slice(tid).partition_S(sPt);
    Tensor tKVsdSt = copy_dkv_a.get_slice(tid).partition_S(sdSt);
    Tensor tKVsdOt = copy_dkv_b.get_slice(tid).partition_S(sdOt);
    Tensor tKVsQt = copy_dkv_b.get_slice(tid).partition_S(sQt);

    // dQ: (M, D) from dS (A) and Kᵀ (B, transposed).
    typename Layouts::TiledMmadQ mma_dq;
    auto thr_dq = mma_dq.get_thread_slice(tid);
    Tensor tQrdS = thr_dq.partition_fragment_A(sdS);  // (MMA, MMA_M, MMA_K = BLOCK_N / 16)
    Tensor tQrKt = thr_dq.partition_fragment_B(sKt);  // (MMA, MMA_D, MMA_K)
    auto copy_dq_a = make_tiled_copy_A(typename Layouts::SmemCopyAtom{}, mma_dq);
    auto copy_dq_b = make_tiled_copy_B(typename Layouts::SmemCopyAtomTransposed{}, mma_dq);
    Tensor tQsdS = copy_dq_a.get_slice(tid).partition_S(sdS);
    Tensor tQsKt = copy_dq_b.get_slice(tid).partition_S(sKt);
    Tensor tQcdQ = thr_dq.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));

    // Step s covers query block m_begin + s % blocks_per_head of head first_head + s / blocks_per_head.
    auto head_of = [&](int s) { return work.first_head + s / blocks_per_head; };
    auto row0_of = [&](int s) { return (work.m_begin + s % blocks_per_head) * kBlockM; };
    // Rows past the sequence end are zero-filled, never read: they hold another sequence's rows or NaN.
    auto load_q_do = [&](int s) {
      const int head = head_of(s);
      const int row0 = row0_of(s);
      const int rows = work.seqlen_q - row0;
      Tensor gQ = make_tensor(make_gmem_ptr(static_cast<const Element*>(p.q) +
                                            row_offset(p, p.q_strides, work.batch, row0, head)),
                              Shape<Int<kBlockM>, Int<kHeadDim>>{}, make_stride(p.q_strides.row, _1{}));
      Tensor gdO = make_tensor(make_gmem_ptr(static_cast<const Element*>(p.dout) +
                                             row_offset(p, p.dout_strides, work.batch, row0, head)),
                               Shape<Int<kBlockM>, Int<kHeadDimV>>{}, make_stride(p.dout_strides.row, _1{}));
      copy_rows_async(gmem_copy, gmem_thr.partition_S(gQ), tQsQ, tQcQ, rows);
      copy_rows_async(gmem_copy_v, gmem_thr_v.partition_S(gdO), tQsdO, tQcdO, rows);
      cp_async_fence();
    };

    auto step = [&](int s, auto kind) __attribute__((always_inline)) {
      constexpr StepKind kKind = decltype(kind)::value;
      const int head = head_of(s);
      const int row0 = row0_of(s);
      // The rows' lse (log2 units; +inf past the sequence end or for a row with no key, so P = 0) and D.
      float lse_log2[kRows];
      float dsum[kRows];
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        const int row = row0 + get<0>(tScS_rc(r, 0));
        const bool valid = row < work.seqlen_q;
        const std::int64_t index = ws.stat_index(head, ws.token(p, work.batch, valid ? row : 0));
        lse_log2[r] = valid ? ws.lse_log2[index] : INFINITY;
        dsum[r] = valid ? ws.dsum[index] : 0.0f;
      }

      cp_async_wait<0>();
      __syncthreads();  // Q, dO (and on the first step K, V) landed; the last step's reads of P, dS are done

      Tensor acc_s =
          partition_fragment_C(mma_sdp, Shape<Int<kBlockM>, Int<kBlockN>>{});  // (MMA, MMA_M, MMA_N)
      clear(acc_s);
      gemm_smem_smem(mma_sdp, acc_s, tSrQ, tSrK, tSsQ, tSsK, copy_sdp_a, copy_sdp_b);
      Tensor scores = acc_rowcol(acc_s);  // (ROWS, COLS)
      // 1 - tanh² of each score, only kept by the softcap step (the other kinds leave it dead).
      Tensor dtanh = make_tensor<float>(scores.layout());
      if constexpr (kKind == StepKind::bulk) {
        CUTE_UNROLL
        for (int r = 0; r < kRows; ++r) {
          CUTE_UNROLL
          for (int c = 0; c < size<1>(scores); ++c)
            scores(r, c) = exp2_approx(scores(r, c) * params.score_to_log2 - lse_log2[r]);
        }
      } else {
        if constexpr (kKind == StepKind::softcap) {
          CUTE_UNROLL
          for (int i = 0; i < size(scores); ++i) {
            const float th = softcap_tanh(scores(i) * params.softcap_pre);
            dtanh(i) = 1.0f - th * th;
            scores(i) = th * params.score_to_log2;
          }
        } else {
          CUTE_UNROLL
          for (int i = 0; i < size(scores); ++i) scores(i) *= params.score_to_log2;
        }
        if (params.has_alibi) {
          const float slope_log2 = p.alibi_slopes[work.batch * p.alibi_batch_stride + head] * kLog2e;
          mask_scores<true>(scores, tScS_rc, row0, work.n0, range, slope_log2);
        } else {
          mask_scores<false>(scores, tScS_rc, row0, work.n0, range, 0.0f);
        }
        CUTE_UNROLL
        for (int r = 0; r < kRows; ++r) {
          CUTE_UNROLL
          for (int c = 0; c < size<1>(scores); ++c) scores(r, c) = exp2_approx(scores(r, c) - lse_log2[r]);
        }
      }
      {
        Tensor rP = convert_fragment<Element>(acc_s);
        copy(copy_pds, copy_pds.get_slice(tid).retile_S(rP), tPsP);
      }
      // With softcap, dS = P ∘ (1 - tanh²) ∘ (dP - D): fold the factor into P once P is stored.
      if constexpr (kKind == StepKind::softcap) {
        CUTE_UNROLL
        for (int i = 0; i < size(scores); ++i) scores(i) *= dtanh(i);
      }

      Tensor acc_dp =
          partition_fragment_C(mma_sdp, Shape<Int<kBlockM>, Int<kBlockN>>{});  // (MMA, MMA_M, MMA_N)
      clear(acc_dp);
      gemm_smem_smem(mma_sdp, acc_dp, tSrdO, tSrV, tSsdO, tSsV, copy_sdp_a, copy_sdp_b);
      Tensor ds = acc_rowcol(acc_dp);
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        CUTE_UNROLL
        for (int c = 0; c < size<1>(ds); ++c) ds(r, c) = scores(r, c) * (ds(r, c) - dsum[r]);
      }
      {
        Tensor rdS = convert_fragment<Element>(acc_dp);
        copy(copy_pds, copy_pds.get_slice(tid).retile_S(rdS), tPsdS);
      }
      __syncthreads();  // P and dS complete in shared memory

      gemm_smem_smem(mma_dkv, acc_dv, tKVrPt, tKVrdOt, tKVsPt, tKVsdOt, copy_dkv_a, copy_dkv_b);
      gemm_smem_smem(mma_dkv, acc_dk, tKVrPt, tKVrQt, tKVsdSt, tKVsQt, copy_dkv_a, copy_dkv_b);
      if (s + 1 < steps) {
        __syncthreads();  // every warp is done reading Q and dO
        load_q_do(s + 1);
      }

      Tensor acc_dq =
          partition_fragment_C(mma_dq, Shape<Int<kBlockM>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_N)
      clear(acc_dq);
      gemm_smem_smem(mma_dq, acc_dq, tQrdS, tQrKt, tQsdS, tQsKt, copy_dq_a, copy_dq_b);
      int* semaphore = nullptr;
      if (p.deterministic) {
        const int m_block = row0 / kBlockM;
        semaphore = ws.semaphore(p, work.batch, head, m_block);
        if (tid == 0) {
          const ::cuda::atomic_ref<int, ::cuda::thread_scope_device> turn(*semaphore);
          const int mine = work.n_block - first_key_block(p, work, m_block);
          while (turn.load(::cuda::memory_order_acquire) != mine) {
          }
        }
        __syncthreads();  // the earlier key blocks' additions to this query block are visible
      }
      // Rows past the sequence end belong to another sequence (or none): their dQ is not added.
      float* dq = ws.dq_accum + ws.dq_index(p, ws.token(p, work.batch, row0), head);
      const std::int64_t dq_row_stride = std::int64_t{p.heads} * p.head_dim;
      CUTE_UNROLL
      for (int i = 0; i < size(acc_dq); ++i) {
        const int row = get<0>(tQcdQ(i));
        if (row0 + row < work.seqlen_q) atomicAdd(dq + row * dq_row_stride + get<1>(tQcdQ(i)), acc_dq(i));
      }
      if (p.deterministic) {
        __syncthreads();  // every thread's additions precede the release below
        if (tid == 0) {
          __threadfence();
          ::cuda::atomic_ref<int, ::cuda::thread_scope_device>(*semaphore)
              .fetch_add(1, ::cuda::memory_order_release);
        }
      }
    };

    load_q_do(0);
    for (int s = 0; s < steps; ++s) {
      // The block needs no mask when its first row keeps every key up to the block's end and its last
      // valid row keeps every key from the block's start (key intervals grow with the row). ALiBi's bias
      // is applied with the mask, so it takes the masked step throughout.
      const int row0 = row0_of(s);
      const int last_row = min(row0 + kBlockM, work.seqlen_q) - 1;
      const bool whole = range.key_begin(last_row) <= work.n0 && range.key_end(row0) >= work.n0 + kBlockN;
      if (params.softcap_pre > 0.0f) {
        step(s, Step<StepKind::softcap>{});
      } else if (params.has_alibi || !whole) {
        step(s, Step<StepKind::masked>{});
      } else {
        step(s, Step<StepKind::bulk>{});
      }
    }
    __syncthreads();  // every warp is done reading K and V: the epilogue stages dK and dV there
  }
};

}  // namespace flashattn::cuda::sm80
