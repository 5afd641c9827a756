// flashattn — the few Hopper primitives the sm90 kernels need and CuTe/CUTLASS do not spell out:
// register views of wgmma accumulators, one warpgroup GEMM call (fence, arrive, k-loop, commit, wait), and
// the named barriers the kernel's warpgroups use.
//
// A wgmma m64nNk16 accumulator tile partitioned by a TiledMMA has layout ((2, 2, N / 8), MMA_M, MMA_N): in
// each 8-column group a thread holds 2 adjacent columns (mode 0, 0) of 2 rows 8 apart (mode 0, 1), the
// same quad structure as mma.sync m16n8 (a row's columns live in the 4 lanes of a quad).
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>
#include <cute/tensor.hpp>

namespace flashattn::cuda::sm90 {

/// ((2, 2, N / 8), MMA_M, MMA_N) -> ((2, MMA_M), (2, N / 8, MMA_N)): a (rows, cols) view of a wgmma
/// accumulator layout.
template <class Layout>
__device__ __forceinline__ constexpr auto gmma_acc_rowcol_layout(Layout layout) {
  using namespace cute;
  static_assert(rank(Layout{}) == 3 && rank<0>(Layout{}) == 3, "expects a wgmma accumulator layout");
  static_assert(size<0, 0>(Layout{}) == 2 && size<0, 1>(Layout{}) == 2);
  return make_layout(make_layout(get<0, 1>(layout), get<1>(layout)),
                     make_layout(get<0, 0>(layout), get<0, 2>(layout), get<2>(layout)));
}

/// (rows, cols) view of a wgmma accumulator tensor (shares its registers).
template <class Tensor>
__device__ __forceinline__ auto gmma_acc_rowcol(Tensor&& acc) {
  return cute::make_tensor(acc.data(), gmma_acc_rowcol_layout(acc.layout()));
}

/// ((2, 2, N / 8), MMA_M, MMA_N) -> ((2, 2, 2), MMA_M, (N / 16, MMA_N)): a 16-bit accumulator read as the
/// register A operand of the next wgmma (its k = the accumulator's n; a k16 slice is two 8-column groups).
template <class Layout>
__device__ __forceinline__ constexpr auto gmma_acc_as_a_layout(Layout layout) {
  using namespace cute;
  static_assert(size<0, 2>(Layout{}) % 2 == 0, "the accumulator's N must be a multiple of 16");
  auto split = logical_divide(get<0>(layout), Shape<Underscore, Underscore, _2>{});  // (2, 2, (2, N / 16))
  return make_layout(make_layout(get<0>(split), get<1>(split), get<2, 0>(split)), get<1>(layout),
                     make_layout(get<2, 1>(split), get<2>(layout)));
}

/// `value`, which the compiler must treat as unknown where this is called: values derived from it inside a
/// loop are recomputed there instead of hoisted out of it and held (or spilled) across the loop.
template <class T>
__device__ __forceinline__ T* opaque(T* value) {
  asm volatile("" : "+l"(value));
  return value;
}

/// tCrC (+)= tCrA · tCrB over the k mode with wgmma, issued by the calling warpgroup as one commit group.
/// kZeroInit: the first k-slice overwrites the accumulator. kWait: wgmma groups left in flight on return
/// (-1 = do not wait; the caller waits with gmma_wait before touching tCrC or a register A operand).
template <bool kZeroInit, int kWait, class TiledMma, class TA, class TB, class TC>
__device__ __forceinline__ void gmma(TiledMma& mma, const TA& tCrA, const TB& tCrB, TC& tCrC) {
  using namespace cute;
  constexpr bool kRegisterA = !is_base_of<GMMA::DescriptorIterator, typename TiledMma::FrgTypeA>::value;
  // The fences pin the accumulator (and a register A) so the compiler moves no access across the
  // asynchronous instructions that read and write them.
  if constexpr (kRegisterA) warpgroup_fence_operand(const_cast<TA&>(tCrA));
  warpgroup_fence_operand(tCrC);
  warpgroup_arrive();
  if constexpr (kZeroInit) mma.accumulate_ = GMMA::ScaleOut::Zero;
  CUTE_UNROLL
  for (int k = 0; k < size<2>(tCrA); ++k) {
    gemm(mma, tCrA(_, _, k), tCrB(_, _, k), tCrC);
    mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
  if constexpr (kWait >= 0) {
    warpgroup_wait<kWait>();
    warpgroup_fence_operand(tCrC);
    if constexpr (kRegisterA) warpgroup_fence_operand(const_cast<TA&>(tCrA));
  }
}

/// Waits until at most kPending wgmma commit groups of the warpgroup are in flight, then pins `operands`
/// (accumulators and register A operands of the completed groups) so no access moves above the wait.
template <int kPending, class... Operands>
__device__ __forceinline__ void gmma_wait(Operands&... operands) {
  cute::warpgroup_wait<kPending>();
  (cute::warpgroup_fence_operand(operands), ...);
}

/// Blocks until the calling thread's bulk asynchronous operations (TMA stores and reduce-adds) are
/// complete, their writes performed in global memory, then orders them before the thread's later generic
/// memory operations (cute::tma_store_wait waits only until they have read shared memory).
__device__ __forceinline__ void bulk_wait_writes() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
  __threadfence();
}

/// 16 bytes to or from shared memory at `address` (cute::cast_smem_ptr_to_uint). Through a pointer the
/// compiler cannot prove shared (an element of a swizzled CuTe tensor, say) they compile to generic LD / ST,
/// which resolve the address space at run time (the GQA-packed forward's Q and O copies did).
__device__ __forceinline__ void store_shared_16_bytes(std::uint32_t address, const uint4& value) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(address), "r"(value.x), "r"(value.y),
               "r"(value.z), "r"(value.w)
               : "memory");
}
__device__ __forceinline__ uint4 load_shared_16_bytes(std::uint32_t address) {
  uint4 value;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(value.x), "=r"(value.y), "=r"(value.z), "=r"(value.w)
               : "r"(address));  // volatile: kept after the barrier that publishes the data
  return value;
}

/// threadIdx.x, read so that the compiler cannot hoist what is computed from it out of the loop it is
/// read in. The persistent kernel's epilogue addresses depend on the thread alone; hoisted out of the
/// tile loop they would stay live across the main loop and spill.
__device__ __forceinline__ int thread_index_in_loop() {
  int index;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(index));
  return index;
}

/// Named barriers of the forward kernel (ids above CUTLASS's reserved ones; 16 exist in hardware, room for
/// three consumer warpgroups). Each is used by a fixed set of threads: kConsumers by every consumer
/// warpgroup, kWarpGroup + w by consumer warpgroup w alone, kPingPong + w by warpgroup w (waiting) and the
/// warpgroup before it in turn order (passing).
enum class FwdBarrier : std::uint32_t { kConsumers = 0, kWarpGroup = 1, kPingPong = 4 };

/// Blocks until `threads` threads reached barrier `id` (+ offset for per-warpgroup barriers).
__device__ __forceinline__ void named_barrier_sync(int threads, FwdBarrier id, int offset = 0) {
  cutlass::arch::NamedBarrier::sync(threads, static_cast<std::uint32_t>(id) + offset);
}

/// Ping-pong among the consumer warpgroups: each issues its tensor-core work of a step only in its turn
/// (wait), and hands the turn to the next warpgroup right after issuing (pass), so the others' softmax
/// runs while one warpgroup's wgmmas occupy the tensor cores. Turns go round strictly (0, 1, .., 0), so
/// every warpgroup must take the same number of turns; warpgroup 0 goes first (start). kEnabled = false
/// (an ablation build) makes every call a no-op.
template <bool kEnabled, int kWarpGroups>
class PingPong {
 public:
  static_assert(kWarpGroups >= 2 && kWarpGroups <= 3, "barrier ids are reserved for two or three warpgroups");
  static constexpr int kThreads = 2 * 128;  ///< per barrier: 128 waiting + 128 passing threads

  __device__ explicit PingPong(int warp_group) : warp_group_(warp_group) {}
  /// Warpgroup 0 grants itself the first turn (once per kernel, before its first wait).
  __device__ void start() const {
    if (kEnabled && warp_group_ == 0) arrive(0);
  }
  __device__ void wait() const {
    if constexpr (kEnabled) {
      cutlass::arch::NamedBarrier::sync(kThreads,
                                        static_cast<std::uint32_t>(FwdBarrier::kPingPong) + warp_group_);
    }
  }
  __device__ void pass() const {
    if constexpr (kEnabled) arrive(warp_group_ + 1 == kWarpGroups ? 0 : warp_group_ + 1);
  }

 private:
  __device__ static void arrive(int warp_group) {
    cutlass::arch::NamedBarrier::arrive(kThreads,
                                        static_cast<std::uint32_t>(FwdBarrier::kPingPong) + warp_group);
  }
  int warp_group_;
};

}  // namespace flashattn::cuda::sm90
