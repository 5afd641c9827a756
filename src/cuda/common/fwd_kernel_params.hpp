// flashattn — the forward problem as CUDA kernels take it: the normalised ForwardParams plus the constants
// derived once on the host (STYLE.md #3), passed by value as a __grid_constant__ struct.
#pragma once

#include <cstdint>

#include "core/params.hpp"

namespace flashattn::cuda {

inline constexpr float kLog2e = 1.4426950408889634f;

struct FwdKernelParams {
  ForwardParams problem;
  /// Scores enter the softmax in the log2 domain: t = s * score_to_log2 without softcap, and
  /// t = tanh(s * softcap_pre) * score_to_log2 with it (softcap_pre = scale / softcap,
  /// score_to_log2 = softcap * log2(e)), so that exp2(t - max t) is the softmax numerator.
  float score_to_log2 = 0.0f;
  float softcap_pre = 0.0f;  ///< 0 = softcap off.
  /// ALiBi slopes are multiplied by log2(e) on the fly: the bias is applied in the log2 domain.
  bool has_alibi = false;
  /// Softcap, ALiBi or a scale <= 0: every key tile takes the general (masked) step, which turns the
  /// scores into t itself (softmax_scale_log2 = 1). Otherwise the softmax takes raw q·k and folds
  /// score_to_log2 into its exp2 (one FFMA), which needs score_to_log2 > 0 so the max commutes with it.
  bool score_mods = false;
  float softmax_scale_log2 = 0.0f;
  int num_m_blocks = 0;  ///< Query tiles per (batch, head): ceil(max_seqlen_q / BLOCK_M).
};

/// Host: derives the kernel constants of `params` for a kernel with `block_m` query rows per CTA.
inline FwdKernelParams make_fwd_kernel_params(const ForwardParams& params, int block_m) {
  FwdKernelParams p;
  p.problem = params;
  if (params.softcap > 0.0f) {
    p.softcap_pre = params.scale / params.softcap;
    p.score_to_log2 = params.softcap * kLog2e;
  } else {
    p.score_to_log2 = params.scale_log2;
  }
  p.has_alibi = params.alibi_slopes != nullptr;
  p.score_mods = params.softcap > 0.0f || p.has_alibi || !(p.score_to_log2 > 0.0f);
  p.softmax_scale_log2 = p.score_mods ? 1.0f : p.score_to_log2;
  p.num_m_blocks = (params.max_seqlen_q + block_m - 1) / block_m;
  return p;
}

}  // namespace flashattn::cuda
