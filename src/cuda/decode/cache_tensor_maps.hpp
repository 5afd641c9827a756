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

/// Keys of one box: a warp's slice of the decode tile.
inline constexpr int kCacheBoxRows = core::kDecodeKeysPerTile / 4;

/// Why `params`' cache cannot be read through tensor maps, or null when it can (the head dim a multiple of
/// 64 with 2-byte elements, base addresses 16-byte aligned and strides multiples of 16 bytes below 2^40,
/// and for a paged cache a page size that whole boxes of kCacheBoxRows rows tile). `entries` and
/// `rows_per_entry` are the cache tensor's first two extents.
inline const char* cache_tensor_maps_unusable(const KVCacheParams& params, std::int64_t entries,
                                              std::int64_t rows_per_entry) {
  if (params.head_dim % 64 != 0 || params.head_dim_v != params.head_dim)
    return "the head dim is not a multiple of 64";
  if (params.dtype != DType::bf16 && params.dtype != DType::fp16) return "the cache is not 2-byte elements";
  if (params.page_table != nullptr && params.page_size % kCacheBoxRows != 0)
    return "the page size is not a multiple of 16";
  // A dim of extent 1 is never stepped: its stride does not matter.
  const auto aligned = [](std::int64_t extent, std::int64_t elements) {
    return extent == 1 || (elements > 0 && elements * 2 % 16 == 0 && elements * 2 < (std::int64_t{1} << 40));
  };
  const auto address_aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  for (const OperandStrides* s : {&params.k_strides, &params.v_strides}) {
    if (!aligned(rows_per_entry, s->row) || !aligned(params.heads_kv, s->head) || !aligned(entries, s->batch))
      return "a cache stride is not a multiple of 16 bytes";
  }
  if (!address_aligned(params.k) || !address_aligned(params.v)) return "a cache is not 16-byte aligned";
  if (entries >= (std::int64_t{1} << 32) || rows_per_entry >= (std::int64_t{1} << 32) || entries == 0 ||
      rows_per_entry == 0)
    return "the cache's extents do not fit a tensor map";
  return nullptr;
}

/// Encodes the maps of k and v (cache_tensor_maps_unusable(...) must be null). Returns false when the
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
    const cuuint32_t box[5] = {64, kCacheBoxRows, static_cast<cuuint32_t>(params.head_dim / 64), 1, 1};
    const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
    return cutlass::call_cuTensorMapEncodeTiled(
               &map, type, 5, const_cast<void*>(base), dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
  };
  return encode(maps.k, params.k, params.k_strides) && encode(maps.v, params.v, params.v_strides);
}

}  // namespace flashattn::cuda::decode
