// flashattn — the split-KV decode kernel (sm80 atoms; runs on sm80 and newer). One CTA per (batch, kv head,
// packed row block, split): the 16 rows are the Sq new tokens x H / Hk query heads sharing the kv head
// (GQA packing: each K/V byte of the split is read once per row block, which is once for Sq * H / Hk <=
// 16), the split a contiguous range of 64-key tiles of the sequence's own kept keys.
//
// Split ranges depend on the sequence's own length and the call's num_splits only, so a sequence's result
// never depends on its batch neighbours; a split with no tile still writes its (empty) partial.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/fragment.cuh"
#include "cuda/common/mask.cuh"
#include "cuda/decode/decode_kernel_params.hpp"
#include "cuda/decode/epilogue_decode_sm80.cuh"
#include "cuda/decode/layouts_decode_sm80.cuh"
#include "cuda/decode/mainloop_decode_sm80_cpasync_mma.cuh"

namespace flashattn::cuda::decode {

/// Grid: x = ((batch * Hk + kv head) * row_blocks + row block) * num_splits + split, flattened (y and z
/// would cap B and Hk at 65535); the splits of one (batch, kv head) are adjacent and run together.
template <class Element, int kHeadDim>
__global__ void __launch_bounds__(DecodeLayouts<Element, kHeadDim>::kThreads,
                                  DecodeLayouts<Element, kHeadDim>::kTile.ctas_per_sm)
    decode_sm80_kernel(const __grid_constant__ DecodeKernelParams params) {
  using Layouts = DecodeLayouts<Element, kHeadDim>;
  using Mainloop = DecodeMainloopSm80<Element, kHeadDim>;
  using Epilogue = DecodeEpilogueSm80<Element, kHeadDim>;
  constexpr int kBlockN = Layouts::kBlockN;
  static_assert(Layouts::kSmemBytes <= 227 * 1024, "shared memory of one CTA is at most 227 KB (sm90)");
  using namespace cute;

  extern __shared__ __align__(128) char smem_buffer[];
  auto& smem = *reinterpret_cast<typename Layouts::SharedStorage*>(smem_buffer);
  const ForwardParams& p = params.fwd.problem;

  int index = static_cast<int>(blockIdx.x);  // the launcher caps the grid at 2^31 - 1 CTAs
  int split, row_block;
  params.splits_divmod(index, split, index);
  params.row_blocks_divmod(index, row_block, index);
  typename Mainloop::Work work;
  params.heads_kv_divmod(work.batch, work.head_kv, index);
  work.row0 = row_block * Layouts::kBlockM;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The split combine is launched as this grid's programmatic dependent: once every CTA of this grid has
  // started, its CTAs may launch (they wait for this grid's results in griddepcontrol.wait), which hides
  // the combine's launch latency behind this grid's tail.
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  // Q first: it does not depend on the sequence length, whose load is the next round trip to memory.
  Mainloop::load_q(params, smem, work);
  work.seqlen_k = p.seqlen_k(work.batch);
  const KeyRange range(p, params.seqlen_q, work.seqlen_k);

  // Tokens of the block's first and last valid rows: key intervals grow with the token, so the block needs
  // keys [key_begin(first), key_end(last)) and every valid row keeps [key_begin(last), key_end(first)).
  const int token_first = params.group_divmod.div(work.row0);
  const int token_last = params.group_divmod.div(min(work.row0 + Layouts::kBlockM, params.rows) - 1);
  work.key_begin = range.key_begin(token_last);
  work.key_end = range.key_end(token_first);
  const int n_lo = range.key_begin(token_first) / kBlockN;
  const int n_hi = max(n_lo, (range.key_end(token_last) + kBlockN - 1) / kBlockN);
  const int per_split = params.splits_divmod.div(n_hi - n_lo + params.num_splits - 1);
  work.n_begin = min(n_hi, n_lo + split * per_split);
  work.n_end = min(n_hi, work.n_begin + per_split);

  typename Layouts::WarpMma mma;
  Tensor acc_o = partition_fragment_C(mma, Shape<Int<Layouts::kBlockM>, Int<kHeadDim>>{});  // fp32
  clear(acc_o);
  typename Mainloop::Softmax softmax(params.fwd.softmax_scale_log2);
  Mainloop::run(params, smem, work, range, acc_o, softmax);

  float lse[2];
  Tensor acc_o_rc = acc_rowcol(acc_o);
  softmax.finalize(acc_o_rc, lse);
  Epilogue::store(params, smem, acc_o, lse, work.batch, work.head_kv, work.row0, split);
}

}  // namespace flashattn::cuda::decode
