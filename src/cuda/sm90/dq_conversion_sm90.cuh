// flashattn — dQ converted inside the Hopper backward's main kernel, in place of the postprocess kernel.
//
// A query block's fp32 accumulator receives one addition from each key block that meets it
// (core::bwd_key_blocks_meeting). The CTA whose addition completes last scales the block, rounds it to the
// element type and writes dq, reading the rows from L2 where the additions just landed, instead of a
// separate kernel reading the whole accumulator back from DRAM (128 MB at B·S 16k, H·D 2048: 45 µs of a
// 500-700 µs call at S 512). The dQ writer warp learns that it was last — from its deterministic turn, or
// else from the count of completed additions it raises in the workspace's per-block semaphore — and queues
// the block here; producer warp kDqConverterWarp takes the queue: bulk copies of the block's rows into
// shared memory, then 16-byte stores of dq.
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>
#include <cutlass/numeric_conversion.h>
#include <cuda/atomic>
#include <cute/arch/copy_sm90_tma.hpp>

#include "core/bwd_workspace.hpp"
#include "core/params.hpp"

namespace flashattn::cuda::sm90 {

/// Shared memory of the conversion: one block's rows, and a queue of two blocks between the writer warp
/// and the converter warp.
template <int kBlockM, int kHeadDim>
struct DqConversionStorage {
  static constexpr int kSlots = 2;
  alignas(128) float rows[kBlockM * kHeadDim];  ///< The block's accumulator rows, row-major.
  int head[kSlots];
  int m_block[kSlots];                              ///< -1: the end of the queue.
  cutlass::arch::ClusterBarrier full[kSlots];       ///< A block was queued in the slot (one arrival).
  cutlass::arch::ClusterBarrier empty[kSlots];      ///< The slot was read (one arrival).
  cutlass::arch::ClusterTransactionBarrier loaded;  ///< The rows landed (bulk copy transaction bytes).

  /// One thread, before the CTA barrier that publishes the kernel's barriers.
  __device__ void init() {
    for (int s = 0; s < kSlots; ++s) {
      full[s].init(1);
      empty[s].init(1);
    }
    loaded.init(1);
  }
};

/// The writer's end of the queue (its issuing lane only).
template <int kBlockM, int kHeadDim>
struct DqConversionQueue {
  using Storage = DqConversionStorage<kBlockM, kHeadDim>;
  int pushed = 0;

  /// Queues query block m_block of `head` (m_block -1: no more blocks). Waits for the slot's previous
  /// block to have been read (a fresh barrier's "previous phase" counts as complete).
  __device__ void push(Storage& storage, int head, int m_block) {
    const int slot = pushed % Storage::kSlots;
    const std::uint32_t phase = (pushed / Storage::kSlots) & 1;
    storage.empty[slot].wait(phase ^ 1);
    storage.head[slot] = head;
    storage.m_block[slot] = m_block;
    storage.full[slot].arrive();  // release: the fields are written before the arrival
    ++pushed;
  }

  /// Counts this CTA's completed addition to a block whose meeting key blocks number `count` (the caller
  /// has waited for its bulk writes to complete and made them visible), and queues the block when the
  /// count reaches it: every other addition completed before its own count, which this acquires.
  __device__ void count_completion(Storage& storage, int* semaphore, int count, int head, int m_block) {
    ::cuda::atomic_ref<int, ::cuda::thread_scope_device> done(*semaphore);
    if (done.fetch_add(1, ::cuda::memory_order_acq_rel) + 1 == count) push(storage, head, m_block);
  }
};

/// The converter (every lane of one warp): converts queued blocks of (batch, its sequence's seqlen_q rows
/// starting at workspace token token0) until the end of the queue.
template <class Element, int kBlockM, int kHeadDim>
__device__ void convert_dq_blocks(const BackwardParams& p, const core::BwdWorkspace& ws,
                                  DqConversionStorage<kBlockM, kHeadDim>& storage, int batch, int seqlen_q,
                                  std::int64_t token0) {
  using Storage = DqConversionStorage<kBlockM, kHeadDim>;
  constexpr int kRowBytes = kHeadDim * static_cast<int>(sizeof(float));
  constexpr int kVectors = kHeadDim / 8;  // 16-byte stores of dq a row
  static_assert(32 % kVectors == 0, "a warp converts whole rows at a time");
  constexpr int kRowsPerPass = 32 / kVectors;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  cutlass::NumericArrayConverter<Element, float, 8> convert;
  for (int job = 0;; ++job) {
    const int slot = job % Storage::kSlots;
    storage.full[slot].wait((job / Storage::kSlots) & 1);
    const int head = storage.head[slot];
    const int m_block = storage.m_block[slot];
    __syncwarp();
    if (lane == 0) storage.empty[slot].arrive();
    if (m_block < 0) return;

    const int row0 = m_block * kBlockM;
    const int rows = min(kBlockM, seqlen_q - row0);
    // The additions (async proxy) were made visible before the counts the writer acquired; order that
    // before this warp's bulk reads.
    asm volatile("fence.proxy.async.global;" ::: "memory");
    if (lane == 0) storage.loaded.arrive_and_expect_tx(static_cast<std::uint32_t>(rows * kRowBytes));
    __syncwarp();
    for (int r = lane; r < rows; r += 32) {
      cute::SM90_BULK_COPY_G2S::copy(ws.dq_accum + ws.dq_index(p, token0 + row0 + r, head),
                                     reinterpret_cast<std::uint64_t*>(&storage.loaded),
                                     storage.rows + r * kHeadDim, kRowBytes);
    }
    storage.loaded.wait(static_cast<std::uint32_t>(job & 1));

    // Lane l converts 8 columns of every kRowsPerPass-th row: one 16-byte store of dq a row.
    const float scale = p.scale;
    const float* src = storage.rows + lane / kVectors * kHeadDim + lane % kVectors * 8;
    Element* dst = static_cast<Element*>(p.dq) + batch * p.dq_strides.batch +
                   (p.q_start(batch) + row0 + lane / kVectors) * p.dq_strides.row + head * p.dq_strides.head +
                   lane % kVectors * 8;
    const std::int64_t dst_step = kRowsPerPass * p.dq_strides.row;
#pragma unroll 1
    for (int r = lane / kVectors; r < rows;
         r += kRowsPerPass, src += kRowsPerPass * kHeadDim, dst += dst_step) {
      const float4 lo = *reinterpret_cast<const float4*>(src);
      const float4 hi = *reinterpret_cast<const float4*>(src + 4);
      cutlass::Array<float, 8> values;
      values[0] = lo.x * scale, values[1] = lo.y * scale, values[2] = lo.z * scale, values[3] = lo.w * scale;
      values[4] = hi.x * scale, values[5] = hi.y * scale, values[6] = hi.z * scale, values[7] = hi.w * scale;
      cutlass::AlignedArray<Element, 8> rounded;
      static_cast<cutlass::Array<Element, 8>&>(rounded) = convert(values);
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(rounded.data());
    }
    // The rows are read (generic proxy) before the next block's bulk copies (async proxy) overwrite them.
    __syncwarp();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
}

}  // namespace flashattn::cuda::sm90
