// flashattn — the shared-memory ring through which a Hopper kernel's producer thread hands each tile's work
// to the warps that read it (the forward's consumers; the backward's consumers and dQ writer).
//
// kSlots slots, each with a full barrier (the producer's arrival: the slot holds the next tile's work) and a
// free barrier (every reader thread's arrival once done with it). Both sides count the tiles they passed
// through the ring (an end marker included) to find a tile's slot and barrier phase.
#pragma once

#include <cutlass/arch/barrier.h>

namespace flashattn::cuda::sm90 {

template <class Work, int kReaders, int kSlots = 3>
struct WorkRingSm90 {
  struct SharedStorage {
    Work work[kSlots];
    cutlass::arch::ClusterBarrier full[kSlots];
    cutlass::arch::ClusterBarrier free[kSlots];
  };

  /// Initialises the barriers; one thread, before the CTA barrier that publishes them.
  __device__ static void init(SharedStorage& ring) {
    for (int s = 0; s < kSlots; ++s) {
      ring.full[s].init(1);
      ring.free[s].init(kReaders);
    }
  }

  /// Producer: publishes `work` as the `count`-th tile (0-based) once the readers freed its slot.
  __device__ static void publish(SharedStorage& ring, int count, const Work& work) {
    const int slot = count % kSlots;
    if (count >= kSlots) ring.free[slot].wait((count / kSlots - 1) & 1);
    ring.work[slot] = work;
    // The barrier's asm names no memory: keep the compiler from sinking the stores past the arrival
    // (whose release semantics order them for the readers).
    asm volatile("" ::: "memory");
    ring.full[slot].arrive();
  }

  /// Readers (every reader thread): the `count`-th tile, once published. The slot is theirs until
  /// release(count).
  __device__ static const Work& wait(SharedStorage& ring, int count) {
    const int slot = count % kSlots;
    ring.full[slot].wait((count / kSlots) & 1);
    asm volatile("" ::: "memory");  // no read of the slot above the (acquiring) wait
    return ring.work[slot];
  }

  /// Readers: the `count`-th tile's slot (wait() returned it before), read afresh: after a compiler fence,
  /// so that no field read from it is held in registers from the earlier reads.
  __device__ static const Work& reread(SharedStorage& ring, int count) {
    asm volatile("" ::: "memory");
    return ring.work[count % kSlots];
  }

  /// Readers (every reader thread): done reading the `count`-th tile's slot.
  __device__ static void release(SharedStorage& ring, int count) {
    asm volatile("" ::: "memory");  // no read of the slot below the arrival that frees it
    ring.free[count % kSlots].arrive();
  }
};

}  // namespace flashattn::cuda::sm90
