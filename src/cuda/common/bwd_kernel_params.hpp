// flashattn — the backward problem as CUDA kernels take it: the normalised BackwardParams, the workspace and
// the constants derived once on the host (STYLE.md #3), passed by value as a __grid_constant__ struct.
#pragma once

#include <cstdint>

#include "core/bwd_workspace.hpp"
#include "core/params.hpp"
#include "cuda/common/fwd_kernel_params.hpp"

namespace flashattn::cuda {

using core::BwdWorkspace;

struct BwdKernelParams {
  BackwardParams problem;
  BwdWorkspace workspace;
  /// The forward's log2-domain score t (FwdKernelParams): t = s * score_to_log2 without softcap,
  /// t = tanh(s * softcap_pre) * score_to_log2 with it, s the raw q·k. P = exp2(t - lse * log2(e)).
  float score_to_log2 = 0.0f;
  float softcap_pre = 0.0f;  ///< 0 = softcap off.
  bool has_alibi = false;
  int num_m_blocks = 0;  ///< Query blocks per (batch, head): ceil(max_seqlen_q / BLOCK_M).
  int num_n_blocks = 0;  ///< Key blocks per (batch, kv head): ceil(max_seqlen_k / BLOCK_N).
};

/// Host: derives the kernel constants of `params` for a kernel of (block_m, block_n) tiles.
inline BwdKernelParams make_bwd_kernel_params(const BackwardParams& params, const BwdWorkspace& workspace,
                                              int block_m, int block_n) {
  const FwdKernelParams fwd = make_fwd_kernel_params(params, block_m);
  BwdKernelParams p;
  p.problem = params;
  p.workspace = workspace;
  p.score_to_log2 = fwd.score_to_log2;
  p.softcap_pre = fwd.softcap_pre;
  p.has_alibi = fwd.has_alibi;
  p.num_m_blocks = fwd.num_m_blocks;
  p.num_n_blocks = (params.max_seqlen_k + block_n - 1) / block_n;
  return p;
}

}  // namespace flashattn::cuda
