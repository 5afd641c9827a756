// flashattn — how a forward_kvcache call is laid out on a CUDA device: the split-KV heuristic and the
// workspace the decode kernels need. Pure functions of the call's shape (never of cache_seqlens, which
// may live on the device and differ per sequence), so the same launch serves any lengths (CUDA-graph
// safe) and a sequence's result never depends on its batch neighbours.
//
// The decode kernel (src/cuda/decode/) runs one CTA per (batch, kv head, row block, split): a row block
// packs kDecodeRowsPerCta of the Sq x (H / Hk) query rows that share a kv head (GQA packing), a split is
// a contiguous range of kDecodeKeysPerTile-key tiles of the sequence's cache.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/params.hpp"

namespace flashattn::core {

/// Query rows per CTA of the decode kernel: one m16n8k16 row tile, shared by all of its warps.
inline constexpr int kDecodeRowsPerCta = 16;
/// Keys per main-loop step of the decode kernel (4 warps x 16 keys).
inline constexpr int kDecodeKeysPerTile = 64;
/// Above this many splits the combine's reads of the partials stop being small next to the cache reads.
inline constexpr int kMaxAutoSplits = 128;
/// A split shorter than this many tiles spends more on its prologue and partial write than on keys.
inline constexpr int kMinTilesPerSplit = 2;

/// CTAs of the decode kernel one SM holds (its shared memory per head dim, src/cuda/decode/tile_decode.hpp
/// static_asserts the same numbers): 2 on H100/H200 (228 KB) up to D = 192, 1 at D = 256.
constexpr int decode_ctas_per_sm(int head_dim) { return head_dim <= 192 ? 2 : 1; }

/// The split heuristic. Model: the kernel is bound by HBM bandwidth once every SM holds its CTAs, so the
/// goal is to fill `num_sms * ctas_per_sm` CTA slots in whole waves. `ctas_per_split` = B * Hk * row
/// blocks CTAs run with one split; s splits run s times as many, each over 1/s of the keys. With one wave
/// or more (80% of the slots counts as full) splitting only adds the combine, so 1. Otherwise every s up
/// to the cap (at least kMinTilesPerSplit tiles of `capacity` keys per split, at most kMaxAutoSplits) is
/// scored by wave efficiency waves / ceil(waves), and the smallest s within 85% of the best wins (fewer
/// splits: fewer partials to write and combine). `capacity` is the cache's per-sequence capacity (S_max or
/// max_pages * page_size), the largest length any sequence of the call can have.
/// Not modelled yet: L2 residency of small caches (H200: 60 MB L2), where more waves would not cost HBM
/// traffic.
int choose_kvcache_splits(std::int64_t ctas_per_split, std::int64_t capacity, int num_sms, int ctas_per_sm);

/// The decode launch of one call and its workspace (byte offsets into one buffer).
struct KVCachePlan {
  int row_blocks = 0;  ///< ceil(Sq * (H / Hk) / kDecodeRowsPerCta).
  int num_splits = 1;
  /// Rotated queries (B, Sq, H, D) contiguous in the dtype, when rotary embedding is on.
  std::size_t q_rotated_offset = 0;
  std::size_t q_rotated_bytes = 0;
  /// Per split s and query row index ((b * H + h) * Sq + t): fp32 partial lse, then fp32 partial O (Dv).
  /// Only with more than one split (one split writes out directly).
  std::size_t lse_partial_offset = 0;
  std::size_t o_partial_offset = 0;
  std::size_t bytes = 0;  ///< Total workspace; 0 when none is needed.
};

/// Plans `params` (validated) for a device with `num_sms` SMs: splits from params.num_splits when > 0,
/// else from choose_kvcache_splits().
KVCachePlan plan_kvcache(const KVCacheParams& params, int num_sms);

/// SMs of CUDA device `index`, asked once per device and cached; 0 when it cannot be asked.
int cuda_sm_count(int index);

}  // namespace flashattn::core
