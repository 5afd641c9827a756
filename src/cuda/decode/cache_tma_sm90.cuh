// flashattn — the decode kernel's TMA copy of one cache box (cache_tensor_maps.hpp: a warp's 16 keys, all
// column blocks) into shared memory, completing on an mbarrier's transaction count. sm90 and newer only.
#pragma once

#include <cstdint>

#include <cute/arch/util.hpp>

namespace flashattn::cuda::decode {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// Copies rows [in_entry, in_entry + 16) of kv head `head_kv` of entry `entry` through `map` to `smem_dst`;
/// the bytes count on `barrier`. `evict_first`: the L2 policy of DecodeKernelParams::cache_evict_first,
/// else no policy operand (the copy's default).
__device__ __forceinline__ void copy_cache_box_tma(void* smem_dst, const void* map, std::uint64_t* barrier,
                                                   int in_entry, int head_kv, int entry, bool evict_first) {
  const std::uint32_t dst = cute::cast_smem_ptr_to_uint(smem_dst);
  const std::uint32_t bar = cute::cast_smem_ptr_to_uint(barrier);
  const auto descriptor = reinterpret_cast<std::uint64_t>(map);
  const std::int32_t zero = 0;
  if (evict_first) {
    std::uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0;" : "=l"(policy));
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
        " [%0], [%1, {%3, %4, %5, %6, %7}], [%2], %8;" ::"r"(dst),
        "l"(descriptor), "r"(bar), "r"(zero), "r"(in_entry), "r"(zero), "r"(head_kv), "r"(entry), "l"(policy)
        : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(dst),
        "l"(descriptor), "r"(bar), "r"(zero), "r"(in_entry), "r"(zero), "r"(head_kv), "r"(entry)
        : "memory");
  }
}
#endif

}  // namespace flashattn::cuda::decode
