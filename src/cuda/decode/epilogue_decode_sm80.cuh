// flashattn — the end of the decode kernel: the 4 warps' states (each normalised O and its lse over the
// warp's keys) are merged through shared memory with the log-sum-exp merge
//   lse = m + log(sum_w exp(lse_w - m)),  O = sum_w exp(lse_w - lse) * O_w,  m = max_w lse_w,
// the algebra of the CPU backend's softmax-state merge and of the split combine (combine_decode.cuh); a
// state with no key (lse = -inf) weighs 0, and a row no warp kept a key for stays O = 0, lse = -inf.
// With one split the merged row goes to out (dtype, 16-byte stores) and lse; with several, to the split's
// fp32 partial in the workspace, which the combine kernel reads — or, when the splits run as one cluster,
// stays in this CTA's shared memory for the cluster's combine (cluster_combine_decode.cuh).
#pragma once

#include <cmath>
#include <cstdint>

#include <cute/tensor.hpp>

#include "cuda/common/fragment.cuh"
#include "cuda/decode/cluster_combine_decode.cuh"
#include "cuda/decode/decode_kernel_params.hpp"
#include "cuda/decode/decode_output.cuh"
#include "cuda/decode/layouts_decode_sm80.cuh"

namespace flashattn::cuda::decode {

template <class Element, int kHeadDim>
struct DecodeEpilogueSm80 {
  using Layouts = DecodeLayouts<Element, kHeadDim>;
  static constexpr int kBlockM = Layouts::kBlockM;
  static constexpr int kWarps = Layouts::kWarps;
  static constexpr int kThreads = Layouts::kThreads;
  using Output = DecodeOutput<Element, kHeadDim>;
  static constexpr int kChunksPerRow = Output::kChunksPerRow;

  /// acc_o: the warp's normalised O ((MMA, 1, HEAD_DIM / 8) fp32 of the one-warp mma); lse: the natural-log
  /// lse of the thread's two accumulator rows. Call after the main loop (its shared memory is free).
  template <class AccO>
  __device__ __forceinline__ static void store(const DecodeKernelParams& params,
                                               typename Layouts::SharedStorage& smem, const AccO& acc_o,
                                               const float (&lse)[2], int batch, int head_kv, int row0,
                                               int split) {
    using namespace cute;
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    auto& merge = smem.merge;

    typename Layouts::WarpMma mma;
    Tensor tOcO = mma.get_thread_slice(lane).partition_C(
        make_identity_tensor(Shape<Int<kBlockM>, Int<kHeadDim>>{}));  // (MMA, 1, HEAD_DIM / 8) coords
    CUTE_UNROLL
    for (int i = 0; i < size(acc_o); ++i) merge.o[warp][get<0>(tOcO(i))][get<1>(tOcO(i))] = acc_o(i);
    Tensor tOcO_rc = make_tensor(tOcO.data(), acc_rowcol_layout(tOcO.layout()));  // (2, HEAD_DIM / 4)
    if (lane % 4 == 0) {  // the quad's lanes hold the same rows; its first lane writes their lse
      CUTE_UNROLL
      for (int r = 0; r < 2; ++r) merge.lse[warp][get<0>(tOcO_rc(r, 0))] = lse[r];
    }
    __syncthreads();

    // Each thread weighs the warps' states of its chunk's row itself (4 broadcast loads and exponentials)
    // rather than waiting at one more barrier for 16 threads to do it: this code runs once per CTA, cold in
    // the instruction cache, where a serial phase costs every warp its latency.
    const bool direct = params.num_splits == 1;
    const bool cluster = params.cluster_combine;
    for (int chunk = tid; chunk < kBlockM * kChunksPerRow; chunk += kThreads) {
      const int r = chunk / kChunksPerRow;
      const int col = chunk % kChunksPerRow * 8;
      const int row = row0 + r;
      if (row >= params.rows) continue;
      float max_lse = -INFINITY;
      CUTE_UNROLL
      for (int w = 0; w < kWarps; ++w) max_lse = fmaxf(max_lse, merge.lse[w][r]);
      float weight[kWarps];
      float sum = 0.0f;
      CUTE_UNROLL
      for (int w = 0; w < kWarps; ++w) {
        weight[w] = max_lse == -INFINITY ? 0.0f : expf(merge.lse[w][r] - max_lse);
        sum += weight[w];
      }
      const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
      CUTE_UNROLL
      for (int w = 0; w < kWarps; ++w) weight[w] *= inverse;
      float o[8];
      CUTE_UNROLL
      for (int j = 0; j < 8; ++j) o[j] = 0.0f;
      CUTE_UNROLL
      for (int w = 0; w < kWarps; ++w) {
        CUTE_UNROLL
        for (int j = 0; j < 8; ++j) o[j] += weight[w] * merge.o[w][r][col + j];
      }
      const float lse_row = sum > 0.0f ? max_lse + logf(sum) : -INFINITY;
      if (cluster) {  // in place: this thread alone reads and writes these 8 values of warp 0's row
        CUTE_UNROLL
        for (int j = 0; j < 8; ++j) merge.o[0][r][col + j] = o[j];
        if (col == 0) merge.merged_lse[r] = lse_row;
        continue;
      }
      if (direct) {
        Output::store_chunk(params, batch, head_kv, row, col, o);
        if (col == 0) Output::store_lse(params, batch, head_kv, row, lse_row);
      } else {
        int token, head_in_group;
        params.token_and_head(row, token, head_in_group);
        const int head = head_kv * params.group + head_in_group;
        const std::int64_t index = split * params.partial_rows + partial_row(params, batch, head, token);
        float4* dst = reinterpret_cast<float4*>(params.o_partial + index * kHeadDim + col);
        dst[0] = make_float4(o[0], o[1], o[2], o[3]);
        dst[1] = make_float4(o[4], o[5], o[6], o[7]);
        if (col == 0) params.lse_partial[index] = lse_row;
      }
    }
    if (cluster) DecodeClusterCombine<Element, kHeadDim>::run(params, smem, batch, head_kv, row0);
  }

  /// Index of query row (batch, head, token) among the B * H * Sq rows of a split's partials.
  __device__ __forceinline__ static std::int64_t partial_row(const DecodeKernelParams& params, int batch,
                                                             int head, int token) {
    return (std::int64_t{batch} * params.fwd.problem.heads + head) * params.seqlen_q + token;
  }
};

}  // namespace flashattn::cuda::decode
