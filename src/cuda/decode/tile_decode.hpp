// flashattn — compile-time configuration of the split-KV decode kernel, per head dim (D = Dv).
//
// A CTA holds kDecodeRowsPerCta = 16 packed query rows (one m16n8k16 row tile) and streams its split's
// keys in tiles of kDecodeKeysPerTile = 64 through a cp.async ring of `stages` buffers. Its 4 warps share
// the rows and divide each key tile: warp w takes keys [16w, 16w + 16), keeps its own online-softmax state
// and O, and the warps' states are merged once at the end. With so few rows the kernel is bound by the
// K/V bytes it reads, so the design goal is bytes in flight per SM (stages - 1 tiles ahead per CTA, two
// CTAs per SM where shared memory allows), not tensor-core utilisation (75% of each MMA is padding at
// Sq = 1, GQA 4).
#pragma once

#include "core/kvcache_plan.hpp"

namespace flashattn::cuda::decode {

/// Most splits combined inside one thread-block cluster (sm90): H100/H200's largest cluster (16, above the
/// portable 8, so the launcher opts in). Whether a call's clusters actually fit the GPU at once is asked of
/// the runtime (cuda::max_active_clusters).
inline constexpr int kMaxClusterSplits = 16;

struct DecodeTile {
  int stages;       ///< K/V tiles in the shared-memory ring (stages - 1 loads in flight during a step).
  int ctas_per_sm;  ///< The launch bound; core::decode_ctas_per_sm() tells the split heuristic the same.
};

/// Shared memory per CTA: Q 16 x D plus stages x 64 keys x D of K and of V (2-byte elements).
constexpr int decode_smem_bytes(int head_dim, int stages) {
  return 2 * head_dim * (core::kDecodeRowsPerCta + 2 * stages * core::kDecodeKeysPerTile);
}

constexpr DecodeTile decode_tile(int head_dim) {
  switch (head_dim) {
    // 4 stages (66 KB): 48 KB of K/V in flight per CTA; short rows need more tiles ahead to cover latency.
    case 64:
      return {4, 2};
    // 3 stages: 75 KB (D = 96) and 100 KB (D = 128), two CTAs per SM on H100/H200: 96-128 KB in flight
    // per SM.
    case 96:
    case 128:
      return {3, 2};
    // 2 stages: 102 KB, two CTAs per SM: 96 KB in flight per SM.
    case 192:
      return {2, 2};
    // 2 stages: 136 KB, one CTA per SM: 64 KB in flight.
    case 256:
      return {2, 1};
    default:
      return {0, 0};
  }
}

}  // namespace flashattn::cuda::decode
