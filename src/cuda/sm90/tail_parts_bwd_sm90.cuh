// flashattn — the parts of a split tail tile of the Hopper backward (core::bwd_tail_parts): a tile's query
// walk is split in parts that different CTAs run at once, each accumulating dK and dV over its share of the
// query blocks; part p adds what parts 0 .. p - 1 summed into its own accumulators, and the last part writes
// dK and dV. The order of the additions is fixed (part p adds its own sum to the sum of the parts before
// it), so dK and dV are as reproducible as with whole tiles.
//
// The hand-over goes through the workspace: the sum so far (fp32, in the consumer threads' fragment order,
// thread t's element i at i * kConsumerThreads + t: every part runs the same kernel, so the same thread holds
// the same element) and the tile's flag, the count of parts that have added into it (zeroed before the
// kernel). Part p waits for the flag to read p. That cannot deadlock: units are taken in order, so part
// p - 1 was taken before part p by a resident CTA (or by this one, which then ran it first), and a part
// waits for nothing but the parts before it.
#pragma once

#include <cuda/atomic>

#include <cutlass/arch/barrier.h>

#include "core/bwd_workspace.hpp"

namespace flashattn::cuda::sm90 {

/// Adds the tile's earlier parts' sum into acc_dk / acc_dv (part > 0) and, unless this is the last part,
/// leaves the new sum for the next part. Returns whether this part is the last: only the last writes dK and
/// dV. Every consumer thread calls it (`thread` in [0, kConsumerThreads)); `kBarrier` is a named barrier of
/// the consumer threads. `tile_floats` = BLOCK_N * HEAD_DIM (dK or dV of one tile).
template <int kConsumerThreads, std::uint32_t kBarrier, class AccDk, class AccDv>
__device__ __forceinline__ bool add_tail_parts(const core::BwdWorkspace& ws, int slot, int part, int parts,
                                               int thread, int tile_floats, AccDk& acc_dk, AccDv& acc_dv) {
  float* partial_dk = ws.tail_partials + static_cast<std::int64_t>(slot) * 2 * tile_floats;
  float* partial_dv = partial_dk + tile_floats;
  const ::cuda::atomic_ref<int, ::cuda::thread_scope_device> flag(ws.tail_flags[slot]);
  if (part > 0) {
    if (thread == 0) {
      while (flag.load(::cuda::memory_order_acquire) != part) {
      }
    }
    cutlass::arch::NamedBarrier::sync(kConsumerThreads, kBarrier);  // every thread after the acquire
    CUTE_UNROLL
    for (int i = 0; i < cute::size(acc_dk); ++i)
      acc_dk(i) += __ldcg(partial_dk + i * kConsumerThreads + thread);
    CUTE_UNROLL
    for (int i = 0; i < cute::size(acc_dv); ++i)
      acc_dv(i) += __ldcg(partial_dv + i * kConsumerThreads + thread);
  }
  if (part + 1 == parts) return true;
  CUTE_UNROLL
  for (int i = 0; i < cute::size(acc_dk); ++i) __stcg(partial_dk + i * kConsumerThreads + thread, acc_dk(i));
  CUTE_UNROLL
  for (int i = 0; i < cute::size(acc_dv); ++i) __stcg(partial_dv + i * kConsumerThreads + thread, acc_dv(i));
  // Every thread's stores before the flag: the barrier orders them before thread 0's release.
  cutlass::arch::NamedBarrier::sync(kConsumerThreads, kBarrier);
  if (thread == 0) flag.store(part + 1, ::cuda::memory_order_release);
  return false;
}

}  // namespace flashattn::cuda::sm90
