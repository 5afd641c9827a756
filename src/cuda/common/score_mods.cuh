// flashattn — the score transform both forward kernels apply on tiles that take score modifiers (softcap,
// ALiBi, a non-positive scale): raw q·k into the log2 domain the online softmax works in.
#pragma once

#include <cute/tensor.hpp>

#include "cuda/common/fwd_kernel_params.hpp"

namespace flashattn::cuda {

/// tanh(x) of a softcap, as 1 - 2 / (e^2x + 1) from the hardware exp2 and reciprocal: absolute error ~3e-7
/// (the exact limits ±1 for large |x|, NaN stays NaN), in 6 instructions where tanhf takes ~20. The
/// softcap's score is c * tanh(s / c), so what matters is the absolute error, c * 3e-7: far below the
/// inputs' rounding. tanh.approx (MUFU.TANH) is shorter still, but its 2^-11 relative error, c * 5e-4 in
/// the score, shows in lse beyond the tolerance. Unrolled over a score tile in the forward's first step
/// and main loop, tanhf made up an eighth of the sm90 forward kernel's code (docs/PERF.md, session 16).
__device__ __forceinline__ float softcap_tanh(float x) {
  constexpr float kTwoLog2e = 2.8853900817779268f;  // 2 * log2(e)
  return 1.0f - __fdividef(2.0f, exp2f(x * kTwoLog2e) + 1.0f);
}

/// s -> s * scale * log2(e), or with softcap c: tanh(s * scale / c) * c * log2(e).
template <class Scores>
__device__ __forceinline__ void scores_to_log2(const FwdKernelParams& params, Scores& scores) {
  using namespace cute;
  if (params.softcap_pre > 0.0f) {
    CUTE_UNROLL
    for (int i = 0; i < size(scores); ++i)
      scores(i) = softcap_tanh(scores(i) * params.softcap_pre) * params.score_to_log2;
  } else {
    CUTE_UNROLL
    for (int i = 0; i < size(scores); ++i) scores(i) *= params.score_to_log2;
  }
}

}  // namespace flashattn::cuda
