// flashattn — TMA tensor maps of the decode kernel's K / V cache (sm90): with them the kernel's whole key
// tiles arrive by a few bulk tensor copies that four threads issue, instead of every thread's 16-byte
// cp.async copies and their address arithmetic (docs/PERF.md, session 62: the split cells run few warps
// an SM, where those instructions bound the loop).
//
// Both layouts are one 5-D map, innermost first: (64 elements of a row's 128-byte column block, rows of a
// cache entry, column blocks D / 64, kv heads, entries), where an entry is a batch entry of a dense cache
// (B_cache, S_max, Hk, D) or a page of a paged one (num_pages, page_size, Hk, D). The box (64, 16, D / 64,
// 1, 1) is one warp's 16 keys as DecodeLayouts::SmemLayoutKVWarp holds them: column block after column
// block, each 16 rows of 128 bytes in the 128-byte swizzle that the layout's Swizzle<3, 3, 3> atoms spell.
#pragma once

#include <cuda.h>

#include <cstdint>

#include <cutlass/cuda_host_adapter.hpp>

#include "core/kvcache_plan.hpp"
#include "core/params.hpp"
#include "flashattn/attention.hpp"

namespace flashattn::cuda::decode {

/// The maps live in the kernel's __grid_constant__ parameters (the TMA reads them from there).
struct CacheTensorMaps {
  CUtensorMap k;  // CUtensorMap carries the 64-byte alignment the TMA needs
  CUtensorMap v;
};

/// Encodes the maps of k and v (core::decode_cache_tma_unusable(...) must be null). Returns false when the
/// driver refuses one.
inline bool encode_cache_tensor_maps(const KVCacheParams& params, std::int64_t entries,
                                     std::int64_t rows_per_entry, CacheTensorMaps& maps) {
  const CUtensorMapDataType type =
      params.dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const auto encode = [&](CUtensorMap& map, const void* base, const OperandStrides& s) {
    const cuuint64_t dims[5] = {64, static_cast<cuuint64_t>(rows_per_entry),
                                static_cast<cuuint64_t>(params.head_dim / 64),
                                static_cast<cuuint64_t>(params.heads_kv), static_cast<cuuint64_t>(entries)};
    // Bytes between neighbours of dims 1-4 (a dim of extent 1 takes any multiple of 16).
    const auto bytes = [](std::int64_t extent, std::int64_t elements) {
      return static_cast<cuuint64_t>(extent == 1 ? 16 : elements * 2);
    };
    const cuuint64_t strides[4] = {bytes(rows_per_entry, s.row), 128, bytes(params.heads_kv, s.head),
                                   bytes(entries, s.batch)};
    const cuuint32_t box[5] = {64, core::kDecodeCacheBoxRows, static_cast<cuuint32_t>(params.head_dim / 64),
                               1, 1};
    const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
    return cutlass::call_cuTensorMapEncodeTiled(
               &map, type, 5, const_cast<void*>(base), dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
  };
  return encode(maps.k, params.k, params.k_strides) && encode(maps.v, params.v, params.v_strides);
}

}  // namespace flashattn::cuda::decode
