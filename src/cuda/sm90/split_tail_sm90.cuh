// flashattn — the Hopper forward's cut tiles: a tile of the scheduler's stream (PersistentTileScheduler::
// stream_segment) whose key tiles two CTAs share. The writer (the later key tiles, first in its stretch)
// leaves each consumer warpgroup's rows of normalised O (fp32) and lse in its own slot of the workspace and
// raises the warpgroup's flag; the owner (key tiles from 0, last in its stretch, so most of a tile's time
// later) waits for the flag, merges the two states with the log-sum-exp merge, its own first (a fixed order:
// results are deterministic), and stores through the usual epilogue.
//
// Each consumer warpgroup handles its own 64 rows and flag: nothing waits across warpgroups, which the
// ping-pong keeps apart. A slot holds a warpgroup's accumulator row by row (its row-column view, 4 columns a
// float4, thread-interleaved so that a warp's float4s are contiguous): writer and owner run the same kernel,
// so a thread holds the same rows and columns in both and no coordinate is ever computed.
//
// Invariants: a writer never waits, and every CTA of the persistent grid is resident, so an owner's wait
// ends. The flags are zero when the kernel starts (the launcher clears them on the call's stream).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include <cute/tensor.hpp>

#include "core/fwd_split_tail_workspace.hpp"
#include "cuda/sm90/primitives_sm90.cuh"

namespace flashattn::cuda::sm90 {

/// The workspace of a call's cut tiles: a slot per CTA (the writer's), a flag per slot and warpgroup.
struct FwdSplitTailWorkspace {
  float* partials = nullptr;
  std::int32_t* flags = nullptr;
};

/// kRows rows of kCols accumulator columns a consumer thread holds (its row-column view), kWarpGroups
/// consumer warpgroups of 128 threads.
template <int kRows, int kCols, int kWarpGroups>
struct FwdSplitTailSm90 {
  static constexpr int kThreads = 128;
  static constexpr int kRowsPerThread = kRows;
  static constexpr int kColsPerThread = kCols;
  static constexpr int kFloat4sPerRow = kCols / 4;
  static constexpr int kLoadsInFlight = 8;  ///< float4s of the partial a thread loads at once when merging
  static_assert(kCols % 4 == 0, "a thread's row is whole float4s");
  /// Floats of one warpgroup's share of a slot: its accumulator, then its lse (per thread, duplicated
  /// across the threads of a row, which keeps the addressing the accumulator's).
  static constexpr std::size_t kWarpGroupFloats = std::size_t{kThreads} * kRows * (kCols + 1);
  /// The value head dim: a warpgroup's 64 rows hold 128 threads' kRows x kCols.
  static constexpr int kHeadDimV = kThreads * kRows * kCols / 64;
  static_assert(kRows == 2 && kWarpGroupFloats == core::fwd_split_tail_warpgroup_floats(kHeadDimV),
                "forward_workspace_size() sizes this layout");
  static_assert(kWarpGroups <= core::kFwdSplitTailMaxWarpGroups, "forward_workspace_size() counts these");

  /// Host: bytes of the workspace for `slots` slots: the partials, then the flags (256-byte aligned).
  static std::size_t workspace_bytes(int slots) {
    return core::fwd_split_tail_workspace_bytes(slots, kWarpGroups, kHeadDimV);
  }
  static std::size_t flags_bytes(int slots) {
    return std::size_t(slots) * kWarpGroups * sizeof(std::int32_t);
  }
  static FwdSplitTailWorkspace carve(void* data, int slots) {
    char* base = static_cast<char*>(data);
    return {reinterpret_cast<float*>(base),
            reinterpret_cast<std::int32_t*>(
                base + core::fwd_split_tail_partials_bytes(slots, kWarpGroups, kHeadDimV))};
  }

  /// A consumer thread's rows copied out of its accumulator (row-column order), and their lse.
  struct Rows {
    float o[kRows][kCols];
    float lse[kRows];
    __device__ float& operator()(int r, int c) { return o[r][c]; }
    __device__ const float& operator()(int r, int c) const { return o[r][c]; }
  };

  /// Whether the kernel's calls (epilogue_write / epilogue_merge) run write() and merge() out of line: on a
  /// copy of the thread's rows, in functions of their own (__noinline__), so that a tile which cuts nothing
  /// passes ~140 instructions of copies between its last wgmma and its store instead of the inlined code
  /// (~1,660 SASS instructions at D = 64). The copies run only in the cut tiles; the accumulator never has
  /// its address taken, so it stays in registers. Measured against inline (docs/PERF.md, session 56, H100,
  /// three A/Bs): D = 256 from 2k keys +0.2 ... +1.7% in every cell but the full-mask 4k one (0.990 / 0.991,
  /// a cutting cell; 8k / 16k, which cut too, 1.002 / 1.007 ... 1.014), S <= 1k within 0.3%; D = 128 -1.6 ...
  /// +0.4% and D = 64 -0.7 ... +0.4%, so only D = 256 takes it (at D = 192 its long-key kernel spilled 12
  /// bytes with it).
  static constexpr bool kOutOfLine = kHeadDimV == 256;

  /// The writer's side (write()), inline or out of line (kOutOfLine).
  template <class AccRC>
  __device__ static void epilogue_write(const FwdSplitTailWorkspace& workspace, int slot, int warp_group,
                                        int thread, const AccRC& acc_rc, const float (&lse)[kRows]) {
    if constexpr (kOutOfLine) {
      Rows rows;
      copy_rows(acc_rc, lse, rows);
      write_rows(workspace, slot, warp_group, thread, rows);
    } else {
      write(workspace, slot, warp_group, thread, acc_rc, lse);
    }
  }
  /// The owner's side (merge()), inline or out of line (kOutOfLine).
  template <class AccRC>
  __device__ static void epilogue_merge(const FwdSplitTailWorkspace& workspace, int slot, int warp_group,
                                        int thread, AccRC& acc_rc, float (&lse)[kRows]) {
    if constexpr (kOutOfLine) {
      Rows rows;
      copy_rows(acc_rc, lse, rows);
      merge_rows(workspace, slot, warp_group, thread, rows);
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        lse[r] = rows.lse[r];
        CUTE_UNROLL
        for (int c = 0; c < kCols; ++c) acc_rc(r, c) = rows.o[r][c];
      }
    } else {
      merge(workspace, slot, warp_group, thread, acc_rc, lse);
    }
  }

 private:
  /// The writer's side, called by every thread of consumer warpgroup `warp_group` (`thread` of 128) with
  /// its finished rows (normalised O in the row-column view `acc_rc`, their lse).
  template <class AccRC>
  __device__ static void write(const FwdSplitTailWorkspace& workspace, int slot, int warp_group, int thread,
                               const AccRC& acc_rc, const float (&lse)[kRows]) {
    float* base = share(workspace, slot, warp_group);
    float4* o = reinterpret_cast<float4*>(base);
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      CUTE_UNROLL
      for (int j = 0; j < kFloat4sPerRow; ++j) {
        o[(r * kFloat4sPerRow + j) * kThreads + thread] =
            make_float4(acc_rc(r, 4 * j), acc_rc(r, 4 * j + 1), acc_rc(r, 4 * j + 2), acc_rc(r, 4 * j + 3));
      }
    }
    float* lse_out = base + std::size_t{kThreads} * kRows * kCols;
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) lse_out[r * kThreads + thread] = lse[r];
    __threadfence();  // this thread's partial is visible at gpu scope before the warpgroup's flag
    named_barrier_sync(kThreads, FwdBarrier::kWarpGroup, warp_group);
    if (thread == 0) {
      asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag(workspace, slot, warp_group)), "r"(1)
                   : "memory");
    }
  }

  /// The owner's side, called by every thread of consumer warpgroup `warp_group` with its own finished rows:
  /// waits for the writer of slot `slot`, then merges its rows into `acc_rc` and `lse` (own state first).
  template <class AccRC>
  __device__ static void merge(const FwdSplitTailWorkspace& workspace, int slot, int warp_group, int thread,
                               AccRC& acc_rc, float (&lse)[kRows]) {
    if (thread == 0) {
      const std::int32_t* ready = flag(workspace, slot, warp_group);
      std::int32_t value = 0;
      for (;;) {
        asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(value) : "l"(ready) : "memory");
        if (value != 0) break;
        __nanosleep(64);
      }
    }
    named_barrier_sync(kThreads, FwdBarrier::kWarpGroup, warp_group);  // the partial is visible to all
    const float* base = share(workspace, slot, warp_group);
    const float* lse_in = base + std::size_t{kThreads} * kRows * kCols;
    float own_weight[kRows], other_weight[kRows];
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const float other = __ldcg(lse_in + r * kThreads + thread);
      const float top = fmaxf(lse[r], other);
      const float own_scale = lse[r] == -INFINITY ? 0.0f : expf(lse[r] - top);
      const float other_scale = other == -INFINITY ? 0.0f : expf(other - top);
      const float sum = own_scale + other_scale;
      const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
      own_weight[r] = own_scale * inverse;
      other_weight[r] = other_scale * inverse;
      lse[r] = sum > 0.0f ? top + logf(sum) : -INFINITY;
    }
    const float4* o = reinterpret_cast<const float4*>(base);
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      CUTE_UNROLL
      for (int j = 0; j < kFloat4sPerRow; ++j) {
        const float4 other = __ldcg(o + (r * kFloat4sPerRow + j) * kThreads + thread);
        acc_rc(r, 4 * j) = own_weight[r] * acc_rc(r, 4 * j) + other_weight[r] * other.x;
        acc_rc(r, 4 * j + 1) = own_weight[r] * acc_rc(r, 4 * j + 1) + other_weight[r] * other.y;
        acc_rc(r, 4 * j + 2) = own_weight[r] * acc_rc(r, 4 * j + 2) + other_weight[r] * other.z;
        acc_rc(r, 4 * j + 3) = own_weight[r] * acc_rc(r, 4 * j + 3) + other_weight[r] * other.w;
        // At most kLoadsInFlight float4s ahead: hoisting all of a row's loads spilled at D 256 (its
        // accumulator takes 128 of the 240 registers).
        if ((j + 1) % kLoadsInFlight == 0) __syncwarp();
      }
    }
  }

  template <class AccRC>
  __device__ static void copy_rows(const AccRC& acc_rc, const float (&lse)[kRows], Rows& rows) {
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      rows.lse[r] = lse[r];
      CUTE_UNROLL
      for (int c = 0; c < kCols; ++c) rows.o[r][c] = acc_rc(r, c);
    }
  }
  __device__ __noinline__ static void write_rows(FwdSplitTailWorkspace workspace, int slot, int warp_group,
                                                 int thread, const Rows& rows) {
    write(workspace, slot, warp_group, thread, rows, rows.lse);
  }
  __device__ __noinline__ static void merge_rows(FwdSplitTailWorkspace workspace, int slot, int warp_group,
                                                 int thread, Rows& rows) {
    merge(workspace, slot, warp_group, thread, rows, rows.lse);
  }
  __device__ static float* share(const FwdSplitTailWorkspace& workspace, int slot, int warp_group) {
    return workspace.partials + (std::size_t(slot) * kWarpGroups + warp_group) * kWarpGroupFloats;
  }
  __device__ static std::int32_t* flag(const FwdSplitTailWorkspace& workspace, int slot, int warp_group) {
    return workspace.flags + slot * kWarpGroups + warp_group;
  }
};

}  // namespace flashattn::cuda::sm90
