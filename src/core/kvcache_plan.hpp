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

/// The split heuristic: a cost model of one decode call, minimised over the split count s (ties to fewer
/// splits), from 1 up to the cap (at least kMinTilesPerSplit tiles of `capacity` keys per split, at most
/// kMaxAutoSplits). With n = ctas_per_split * s CTAs over `num_sms` SMs, an SM runs c = ceil(n / num_sms)
/// of them, k = min(c, ctas_per_sm) at a time, each over t = ceil(tiles / s) key tiles:
///
///     cost(s) = c * t * tile(k) + kWaveCost * ceil(c / ctas_per_sm) + (s > 1 ? kSplitCost * s : 0)
///
/// in units of the time one CTA alone on an SM takes to stream a D = 128 key tile (32 KB of K and V, about
/// 1.2 µs on an H200). tile(k) = head_dim / 128 for one resident CTA, times kSharedTileCost for two (two
/// CTAs keep more bytes in flight: each streams its tile in 0.7 of the time, not twice it); kWaveCost is a
/// wave's fixed latency (the sequence length, Q and the first tile in flight, the epilogue); kSplitCost is
/// a split's share of the combine. Fitted on an H200 (session 10, bench/decode_splits.py, D = 128, Hk = 8,
/// B 1-32 x L 1k-64k x 12 split counts; docs/PERF.md): the model's choice runs within 1% of the best
/// measured count on geometric mean (at most 6.7% off, B 16 L 1k), the previous wave-efficiency rule 4%.
/// A dense cache's call whose one-split CTAs cover 80% of the SMs is not split (session 21's sweep, after
/// the cluster combine got cheaper: B 16 x L 1k-128k ran fastest unsplit, up to 7% ahead of the model's 2
/// splits; with the rule the model's choices run within 0.6% of the best of 13 counts on geometric mean
/// over B 1-64 x L 1k-128k, at most 2.5% off); a paged cache's (`paged`), one whose CTAs fill 80% of the
/// CTA slots (unsplit at B 16 it read 3-7% slower). A function of the shapes only (never of
/// cache_seqlens), so the same launch serves any lengths.
/// Past the combine kernel's one-round batch (combine_splits_per_round), when that batch's CTAs already
/// fill all but one in 16 of the CTA slots and the model's count runs in one wave too, the batch is taken
/// instead: the cache is read at HBM's rate either way, and each split past the batch costs every row of
/// the combine another dependent L2 round. Measured at B 1, Hk 8, D 128 on 132 SMs (docs/PERF.md, session
/// 49): 32 splits faster than the model's 33 in every sweep that timed both, at L 131,072 on the H200 of
/// session 21 (+0.4%) and on H100s in sessions 35, 38, 43 (+0.2-0.6%, paged 16 +0.5-0.6%) and 49 (+1.1%,
/// and +0.6-0.9% at L 126k and 130k); 31 and 30 splits as slow as 33. `head_dim_v` (0: `head_dim`) sizes
/// the combine's batch.
/// Not modelled: L2 residency of small caches (H200: 60 MB L2). Not measured: head dims other than 128
/// (the tile cost scales with D by assumption).
int choose_kvcache_splits(std::int64_t ctas_per_split, std::int64_t capacity, int num_sms, int ctas_per_sm,
                          int head_dim, bool paged = false, int head_dim_v = 0);

/// Splits whose partials the combine kernel (src/cuda/decode/combine_decode.cuh, which static_asserts the
/// same number) loads for a row in one round: each of its four warps (one per split chain) holds 8 float4
/// registers a lane, ceil(Dv / 128) column groups of each of its splits, so 32 splits up to Dv = 128 and
/// 16 above.
constexpr int combine_splits_per_round(int head_dim_v) { return 32 / ((head_dim_v + 127) / 128); }

/// Whether the num_splits CTAs of each of `work_items` (batch, kv head, row block) combine inside one
/// thread-block cluster (sm90: no partials, no combine kernel) rather than through the combine kernel:
/// only with several splits and when every cluster of the grid is resident at once. `resident_clusters` is
/// how many clusters of num_splits CTAs the device holds at once (0: no cluster path). Past one wave of
/// clusters the combine kernel is faster: a cluster waits for a whole GPC's worth of free slots, and its
/// CTAs hold theirs until the slowest sibling is done (H200, B 4 L 8k, 32 clusters of 8: 74 µs against 50
/// through the combine kernel).
bool combine_splits_in_clusters(int num_splits, std::int64_t work_items, int resident_clusters);

/// Caches the decode kernel may read with an evict-first L2 policy: at most this many times the L2's size.
inline constexpr std::int64_t kEvictFirstMaxL2Multiple = 4;
/// The largest head dim whose decode kernel carries the policy: D = 256's (one CTA per SM, at 255
/// registers) spilled 72 bytes with the policy operand on its copies, so it keeps the plain ones.
inline constexpr int kDecodeEvictFirstMaxHeadDim = 192;

/// Whether the decode kernel copies the cache's K and V rows with an evict-first L2 policy rather than with
/// none (the normal policy), so that the lines it streams replace each other and the rest of L2 stays where
/// it is (a server's own data; in bench/peers.py, the dirty lines its L2 flush leaves, which the normal
/// policy evicts and writes back to HBM while the cache streams in). Only where every cache row is read by
/// one CTA (the call's Sq x H / Hk packed rows fit one row block: with two, the second would find the rows
/// evicted), the head dim is at most kDecodeEvictFirstMaxHeadDim, and the cache the call may read, B x
/// capacity x Hk x (D + Dv) elements, is at most kEvictFirstMaxL2Multiple times `l2_bytes` (0: unknown,
/// never). Measured on an H100 (50 MiB L2; session 41's decode grid, Hq 32 / Hkv 8, D 128, dense and paged
/// 16, docs/PERF.md): evict-first read caches of 4-128 MiB 1-13% faster, one of 256 MiB within 0.5%, and
/// caches of 512 MiB-8 GiB 1-3.5% slower; this rule against the normal policy everywhere (session 42):
/// dense 1.019, paged 1.031 geometric mean, no cell below 0.997. A function of the shapes and the device
/// only, like the splits.
bool decode_cache_evict_first(const KVCacheParams& params, std::int64_t l2_bytes);

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

/// L2 bytes of CUDA device `index`, asked once per device and cached; 0 when it cannot be asked.
int cuda_l2_bytes(int index);

}  // namespace flashattn::core
