// flashattn — the portable forward kernel (FlashAttention-2 algorithm on CuTe SM80 atoms; runs on sm80 and
// newer). One CTA computes BLOCK_M query rows of one (batch, head) against every key tile those rows keep;
// masked-out key tiles are never loaded.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/block_info.cuh"
#include "cuda/common/fwd_kernel_params.hpp"
#include "cuda/common/mask.cuh"
#include "cuda/sm80/epilogue_fwd_sm80.cuh"
#include "cuda/sm80/layouts_fwd_sm80.cuh"
#include "cuda/sm80/mainloop_fwd_sm80_cpasync_mma.cuh"

namespace flashattn::cuda::sm80 {

/// Grid: one CTA per (query tile, head, batch), flattened into x (y and z would cap B and H at 65535).
/// Query tiles vary fastest so the CTAs reading one head's K and V run together and share them in L2;
/// they are visited last tile first, so under a causal mask the longest CTAs start first.
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
__global__ void __launch_bounds__(FwdLayouts<Element, kHeadDim, kHeadDimV, kRegime>::kThreads,
                                  FwdLayouts<Element, kHeadDim, kHeadDimV, kRegime>::kCtasPerSm)
    fwd_sm80_kernel(const __grid_constant__ FwdKernelParams params) {
  using Layouts = FwdLayouts<Element, kHeadDim, kHeadDimV, kRegime>;
  using Mainloop = FwdMainloopSm80<Element, kHeadDim, kHeadDimV, kRegime>;
  using Epilogue = FwdEpilogueSm80<Element, kHeadDim, kHeadDimV, kRegime>;
  constexpr int kBlockM = Layouts::kBlockM;
  constexpr int kBlockN = Layouts::kBlockN;
  static_assert(kHeadDim % 32 == 0 && kHeadDim <= 256, "head dims 32..256 in steps of 32 are tiled");
  static_assert(Layouts::kSmemBytes <= 227 * 1024, "shared memory of one CTA is at most 227 KB (sm90)");
  using namespace cute;

  extern __shared__ __align__(128) char smem_buffer[];
  auto& smem = *reinterpret_cast<typename Layouts::SharedStorage*>(smem_buffer);
  const ForwardParams& p = params.problem;

  const int m_block = params.num_m_blocks - 1 - static_cast<int>(blockIdx.x % params.num_m_blocks);
  const int batch_head = static_cast<int>(blockIdx.x / params.num_m_blocks);
  const BlockInfo info(p, batch_head / p.heads, batch_head % p.heads);
  typename Mainloop::Work work;
  work.row0 = m_block * kBlockM;
  if (work.row0 >= info.seqlen_q) return;  // varlen: this sequence is shorter than the longest
  work.q_rows = min(kBlockM, info.seqlen_q - work.row0);
  work.seqlen_k = info.seqlen_k;
  const KeyRange range(p, info.seqlen_q, info.seqlen_k);
  // Row intervals grow with the row, so the block needs keys [begin(first row), end(last row)).
  work.n_begin = range.key_begin(work.row0) / kBlockN;
  work.n_end = (range.key_end(work.row0 + work.q_rows - 1) + kBlockN - 1) / kBlockN;
  work.slope_log2 =
      params.has_alibi ? p.alibi_slopes[info.batch * p.alibi_batch_stride + info.head] * kLog2e : 0.0f;

  Tensor gQ = make_tensor(make_gmem_ptr(static_cast<const Element*>(p.q) + info.q_offset(p, work.row0)),
                          Shape<Int<kBlockM>, Int<kHeadDim>>{},
                          make_stride(p.q_strides.row, _1{}));  // (BLOCK_M, HEAD_DIM)
  // K and V tiles of the last key tile the block reads (n_end - 1); the main loop steps back from there.
  const int n_last = max(work.n_end - 1, 0);
  Tensor gK = make_tensor(
      make_gmem_ptr(static_cast<const Element*>(p.k) + info.k_offset(p) + n_last * kBlockN * p.k_strides.row),
      Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_stride(p.k_strides.row, _1{}));  // (BLOCK_N, HEAD_DIM)
  Tensor gV = make_tensor(
      make_gmem_ptr(static_cast<const Element*>(p.v) + info.v_offset(p) + n_last * kBlockN * p.v_strides.row),
      Shape<Int<kBlockN>, Int<kHeadDimV>>{}, make_stride(p.v_strides.row, _1{}));  // (BLOCK_N, HEAD_DIM_V)

  typename Layouts::TiledMma mma;
  Tensor acc_o =
      partition_fragment_C(mma, Shape<Int<kBlockM>, Int<kHeadDimV>>{});  // (MMA, MMA_M, MMA_N) fp32
  clear(acc_o);
  typename Mainloop::Softmax softmax(params.softmax_scale_log2);
  Mainloop::run(params, smem, gQ, gK, gV, kBlockN * p.k_strides.row, kBlockN * p.v_strides.row, work, range,
                acc_o, softmax);

  float lse[Mainloop::kRowsPerThread];
  Tensor acc_o_rc = acc_rowcol(acc_o);
  softmax.finalize(acc_o_rc, lse);
  Tensor gO = make_tensor(make_gmem_ptr(static_cast<Element*>(p.out) + info.out_offset(p, work.row0)),
                          Shape<Int<kBlockM>, Int<kHeadDimV>>{},
                          make_stride(p.out_strides.row, _1{}));  // (BLOCK_M, HEAD_DIM_V)
  float* lse_out = p.lse != nullptr ? p.lse + info.lse_offset(p, work.row0) : nullptr;
  Epilogue::store(smem, acc_o, lse, gO, lse_out, work.q_rows);
}

}  // namespace flashattn::cuda::sm80
