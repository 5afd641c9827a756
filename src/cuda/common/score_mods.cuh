// flashattn — the score transform both forward kernels apply on tiles that take score modifiers (softcap,
// ALiBi, a non-positive scale): raw q·k into the log2 domain the online softmax works in.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/fwd_kernel_params.hpp"

namespace flashattn::cuda {

/// s -> s * scale * log2(e), or with softcap c: tanh(s * scale / c) * c * log2(e). tanhf, not tanh.approx:
/// the approximation's 2^-11 relative error shows in lse beyond the tolerance.
template <class Scores>
__device__ __forceinline__ void scores_to_log2(const FwdKernelParams& params, Scores& scores) {
  using namespace cute;
  if (params.softcap_pre > 0.0f) {
    CUTE_UNROLL
    for (int i = 0; i < size(scores); ++i)
      scores(i) = tanhf(scores(i) * params.softcap_pre) * params.score_to_log2;
  } else {
    CUTE_UNROLL
    for (int i = 0; i < size(scores); ++i) scores(i) *= params.score_to_log2;
  }
}

}  // namespace flashattn::cuda
