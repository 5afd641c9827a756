// flashattn — the size of the Hopper forward's cut-tile workspace, which cuda/sm90/split_tail_sm90.cuh lays
// out: a slot per CTA; in a slot, per consumer warpgroup, its 64 rows x Dv of fp32 O and their lse (one per
// thread and row it holds: 128 threads x 2 rows), then, from a 256-byte boundary, an int flag per slot and
// warpgroup. Host arithmetic, shared by forward_workspace_size() and the launcher.
#pragma once

#include <cstddef>

#include "core/heuristics.hpp"
#include "core/params.hpp"

namespace flashattn::core {

/// Consumer warpgroups of any Hopper forward kernel (the launcher static_asserts its kernel's count).
inline constexpr int kFwdSplitTailMaxWarpGroups = 3;

/// Floats of one warpgroup's share of a slot, for a value head dim of `head_dim_v`.
constexpr std::size_t fwd_split_tail_warpgroup_floats(int head_dim_v) {
  return std::size_t{64} * head_dim_v + 128 * 2;
}

/// Bytes of the partials of `slots` slots of `warpgroups` warpgroups each (the flags start after them).
constexpr std::size_t fwd_split_tail_partials_bytes(int slots, int warpgroups, int head_dim_v) {
  const std::size_t bytes =
      std::size_t(slots) * warpgroups * fwd_split_tail_warpgroup_floats(head_dim_v) * sizeof(float);
  return (bytes + 255) / 256 * 256;
}

/// Bytes of the whole workspace: the partials, then the flags.
constexpr std::size_t fwd_split_tail_workspace_bytes(int slots, int warpgroups, int head_dim_v) {
  return fwd_split_tail_partials_bytes(slots, warpgroups, head_dim_v) +
         std::size_t(slots) * warpgroups * sizeof(int);
}

/// forward_workspace_size(): enough for any Hopper forward kernel of `p` on `multiprocessors` SMs (a
/// persistent grid has at most a CTA per SM), 0 where none cuts tiles: only a call whose tiles all walk
/// the same keys (no window or causal mask, one length for every sequence) from fwd_split_tail_sm90's
/// length on may.
inline std::size_t fwd_split_tail_workspace_bound(const ForwardParams& p, int multiprocessors) {
  const bool equal_tiles = !p.has_window() && !p.is_varlen() && p.seqused_k == nullptr;
  if (!equal_tiles || !fwd_split_tail_sm90(p.max_seqlen_k, p.head_dim_v) || multiprocessors <= 0) return 0;
  return fwd_split_tail_workspace_bytes(multiprocessors, kFwdSplitTailMaxWarpGroups, p.head_dim_v);
}

}  // namespace flashattn::core
