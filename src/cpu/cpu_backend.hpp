// flashattn — the CPU flash backend: tiled online softmax with fp32 accumulation, OpenMP over
// (batch, head, query tiles) in the forward and (batch, kv head, key tiles) in the backward. Nothing grows
// with Sq * Sk: the forward's extra memory is O(tile) per thread, the backward's O(S) per thread (one
// head's packed rows) plus bounded partial sums when B * Hk is small (backward_plan.hpp).
#pragma once

#include "core/params.hpp"
#include "flashattn/run_info.hpp"
#include "flashattn/status.hpp"

namespace flashattn::cpu {

/// Forward on host memory. `params` is validated and normalised (core/validate.hpp); every element of
/// out (and lse when present) is written. `num_threads` 0 = OpenMP's default. Fills the tile sizes,
/// thread count and kernel name of `info`.
Status forward(const ForwardParams& params, int num_threads, RunInfo& info);

/// Backward on host memory: recomputes P from lse, D = rowsum(dO ∘ O); writes every element of dq, dk, dv
/// (dk, dv summed over the query heads of each kv head). Deterministic regardless of params.deterministic.
Status backward(const BackwardParams& params, int num_threads, RunInfo& info);

/// forward_kvcache on host memory: appends k_new / v_new into the cache (rotated when rotary tables are
/// given), then the forward of the (rotated) queries over the cache. Writes the appended cache rows, every
/// element of out and lse, and nothing else.
Status forward_kvcache(const KVCacheParams& params, int num_threads, RunInfo& info);

}  // namespace flashattn::cpu
