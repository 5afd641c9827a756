// flashattn — the portable backward kernel (FlashAttention-2 algorithm on CuTe SM80 atoms; runs on sm80 and
// newer). One CTA owns BLOCK_N keys of one (batch, kv head): it loads K and V once, walks every query block
// of every query head of the kv head's group that sees those keys, and writes dK and dV once — summed over
// the group in registers, with no atomics and no separate reduction. Query blocks that see none of the
// keys are skipped, never loaded. dQ is accumulated across CTAs in the fp32 workspace (see the mainloop).
// Deterministic runs make a CTA wait for the CTAs of lower key blocks of its (batch, kv head): they come
// first in the grid, so they are resident or done before it runs and the wait always ends.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

#include "core/bwd_blocks.hpp"
#include "cuda/common/bwd_kernel_params.hpp"
#include "cuda/common/mask.cuh"
#include "cuda/sm80/epilogue_bwd_sm80.cuh"
#include "cuda/sm80/layouts_bwd_sm80.cuh"
#include "cuda/sm80/mainloop_bwd_sm80_cpasync_mma.cuh"

namespace flashattn::cuda::sm80 {

/// Grid: one CTA per (key block, kv head, batch), flattened into x (y and z would cap B and H at 65535),
/// key blocks fastest.
template <class Element, int kHeadDim, int kHeadDimV>
__global__ void __launch_bounds__(BwdLayouts<Element, kHeadDim, kHeadDimV>::kThreads,
                                  BwdLayouts<Element, kHeadDim, kHeadDimV>::kCtasPerSm)
    bwd_sm80_kernel(const __grid_constant__ BwdKernelParams params) {
  using Layouts = BwdLayouts<Element, kHeadDim, kHeadDimV>;
  using Mainloop = BwdMainloopSm80<Element, kHeadDim, kHeadDimV>;
  using Epilogue = BwdEpilogueSm80<Element, kHeadDim, kHeadDimV>;
  constexpr int kBlockM = Layouts::kBlockM;
  constexpr int kBlockN = Layouts::kBlockN;
  static_assert(kHeadDim % 32 == 0 && kHeadDim <= 256 && kHeadDimV % 32 == 0 && kHeadDimV <= 256,
                "head dims 32..256 in steps of 32 are tiled");
  using namespace cute;

  extern __shared__ __align__(128) char smem_buffer[];
  auto& smem = *reinterpret_cast<typename Layouts::SharedStorage*>(smem_buffer);
  const BackwardParams& p = params.problem;

  const int n_block = static_cast<int>(blockIdx.x % params.num_n_blocks);
  const int batch_head = static_cast<int>(blockIdx.x / params.num_n_blocks);
  const int batch = batch_head / p.heads_kv;
  const int head_kv = batch_head % p.heads_kv;
  typename Mainloop::Work work;
  work.batch = batch;
  work.seqlen_q = p.seqlen_q(batch);
  work.seqlen_k = p.seqlen_k(batch);
  work.n_block = n_block;
  work.n0 = n_block * kBlockN;
  // Key rows of the sequence in k: past seqused_k they are read by no query but get zero gradients.
  const int key_rows = p.cu_seqlens_k ? p.cu_seqlens_k[batch + 1] - p.cu_seqlens_k[batch] : p.max_seqlen_k;
  if (work.n0 >= key_rows) return;  // varlen: this sequence is shorter than the longest
  work.heads = p.heads / p.heads_kv;
  work.first_head = head_kv * work.heads;
  const int n1 = min(work.n0 + kBlockN, work.seqlen_k);
  work.m_begin = 0;
  work.m_end = 0;
  if (n1 > work.n0) {
    const core::BwdQueryRows rows(work.seqlen_q, work.seqlen_k, p.window_left, p.window_right, work.n0, n1);
    if (rows.begin < rows.end) {
      work.m_begin = static_cast<int>(rows.begin / kBlockM);
      work.m_end = static_cast<int>((rows.end + kBlockM - 1) / kBlockM);
    }
  }
  const KeyRange range(p, work.seqlen_q, work.seqlen_k);

  const std::int64_t k_row0 = p.k_start(batch) + work.n0;
  Tensor gK =
      make_tensor(make_gmem_ptr(static_cast<const Element*>(p.k) + batch * p.k_strides.batch +
                                k_row0 * p.k_strides.row + head_kv * p.k_strides.head),
                  Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_stride(p.k_strides.row, _1{}));  // (N, D)
  Tensor gV =
      make_tensor(make_gmem_ptr(static_cast<const Element*>(p.v) + batch * p.v_strides.batch +
                                k_row0 * p.v_strides.row + head_kv * p.v_strides.head),
                  Shape<Int<kBlockN>, Int<kHeadDimV>>{}, make_stride(p.v_strides.row, _1{}));  // (N, Dv)
  if (work.m_end > work.m_begin) {
    // Keys past seqlen_k are zero-filled, never read: zero K scores 0 and is masked, zero V meets P = 0.
    typename Layouts::GmemTiledCopyLoad gmem_copy;
    auto gmem_thr = gmem_copy.get_thread_slice(threadIdx.x);
    Tensor tKcK = gmem_thr.partition_S(make_identity_tensor(Shape<Int<kBlockN>, Int<kHeadDim>>{}));
    Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Layouts::SmemLayoutK{});
    copy_rows_async(gmem_copy, gmem_thr.partition_S(gK), gmem_thr.partition_D(sK), tKcK,
                    work.seqlen_k - work.n0);
    typename Layouts::GmemTiledCopyLoadV gmem_copy_v;
    auto gmem_thr_v = gmem_copy_v.get_thread_slice(threadIdx.x);
    Tensor tVcV = gmem_thr_v.partition_S(make_identity_tensor(Shape<Int<kBlockN>, Int<kHeadDimV>>{}));
    Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Layouts::SmemLayoutV{});
    copy_rows_async(gmem_copy_v, gmem_thr_v.partition_S(gV), gmem_thr_v.partition_D(sV), tVcV,
                    work.seqlen_k - work.n0);
    cp_async_fence();
  }

  typename Layouts::TiledMmadKV mma_dkv;
  Tensor acc_dk = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});  // (MMA, MMA_N, MMA_D)
  Tensor acc_dv =
      partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDimV>>{});  // (MMA, MMA_N, MMA_Dv)
  clear(acc_dk);
  clear(acc_dv);
  Mainloop::run(params, smem, work, range, acc_dk, acc_dv);

  Tensor gdK =
      make_tensor(make_gmem_ptr(static_cast<Element*>(p.dk) + batch * p.dk_strides.batch +
                                k_row0 * p.dk_strides.row + head_kv * p.dk_strides.head),
                  Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_stride(p.dk_strides.row, _1{}));  // (N, D)
  Tensor gdV =
      make_tensor(make_gmem_ptr(static_cast<Element*>(p.dv) + batch * p.dv_strides.batch +
                                k_row0 * p.dv_strides.row + head_kv * p.dv_strides.head),
                  Shape<Int<kBlockN>, Int<kHeadDimV>>{}, make_stride(p.dv_strides.row, _1{}));  // (N, Dv)
  Epilogue::store(smem, acc_dk, acc_dv, p.scale, gdK, gdV, key_rows - work.n0);
}

}  // namespace flashattn::cuda::sm80
