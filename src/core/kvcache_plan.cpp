// flashattn — the decode launch plan. See kvcache_plan.hpp.
#include "core/kvcache_plan.hpp"

#include <algorithm>
#include <optional>

#include "core/per_device_cache.hpp"
#include "flashattn/device.hpp"

namespace flashattn::core {
namespace {

constexpr std::size_t kWorkspaceAlignment = 256;  ///< cudaMalloc's alignment; every region keeps it.

std::size_t align_up(std::size_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

/// Property `member` of CUDA device `index`, 0 when it cannot be asked.
int device_property(int index, int CudaDeviceProperties::*member) {
  const auto props = index >= 0 ? cuda_device_properties(index) : std::nullopt;
  return props ? (*props).*member : 0;
}

}  // namespace

int choose_kvcache_splits(std::int64_t ctas_per_split, std::int64_t capacity, int num_sms, int ctas_per_sm,
                          int head_dim, bool paged, int head_dim_v) {
  // The model's constants (kvcache_plan.hpp), in units of one D = 128 tile streamed by a CTA alone.
  constexpr double kSharedTileCost = 0.7;
  constexpr double kWaveCost = 6.0;
  constexpr double kSplitCost = 0.3;
  const std::int64_t sms = std::max(num_sms, 1);
  const std::int64_t slots_per_sm = std::max(ctas_per_sm, 1);
  // A dense cache's call with one CTA on 80% of the SMs is not split: the model's second CTA per SM
  // (kSharedTileCost) does not pay there. One CTA per SM already reads the cache at HBM's rate when it is
  // long (H200, B 16: L 32k 4.44 TB/s, L 128k 4.54), and when it is short the split's combine costs more
  // than the second CTA gains (B 16 L 1k: 27.5 us unsplit against 29.5 in two); session 21's sweep,
  // docs/PERF.md. A paged cache's copies each wait for a page-table load, so one CTA per SM keeps too few
  // bytes in flight (B 16, page size 16, L 8k-128k: 3-7% slower unsplit than in two splits, session 21):
  // its calls are left unsplit only when they fill 80% of the CTA slots.
  if (ctas_per_split <= 0) return 1;
  if (5 * ctas_per_split >= 4 * sms * (paged ? slots_per_sm : 1)) return 1;
  const std::int64_t tiles =
      (std::max<std::int64_t>(capacity, 0) + kDecodeKeysPerTile - 1) / kDecodeKeysPerTile;
  const int max_splits =
      static_cast<int>(std::clamp<std::int64_t>(tiles / kMinTilesPerSplit, 1, kMaxAutoSplits));
  const double tile_alone = static_cast<double>(head_dim) / 128.0;
  auto cost = [&](int splits) {
    const std::int64_t per_sm = (ctas_per_split * splits + sms - 1) / sms;
    const std::int64_t tiles_per_cta = (tiles + splits - 1) / splits;
    const double tile = std::min(per_sm, slots_per_sm) > 1 ? tile_alone * kSharedTileCost : tile_alone;
    const double waves = static_cast<double>((per_sm + slots_per_sm - 1) / slots_per_sm);
    return static_cast<double>(per_sm * tiles_per_cta) * tile + kWaveCost * waves +
           (splits > 1 ? kSplitCost * splits : 0.0);
  };
  int best = 1;
  double best_cost = cost(1);
  for (int s = 2; s <= max_splits; ++s) {
    const double c = cost(s);
    if (c < best_cost) best = s, best_cost = c;
  }
  // The combine's one-round batch where it loses no wave and at most one CTA slot in 16 (kvcache_plan.hpp).
  const std::int64_t slots = sms * slots_per_sm;
  const int round = combine_splits_per_round(head_dim_v > 0 ? head_dim_v : head_dim);
  if (best > round && round <= max_splits && ctas_per_split * best <= slots &&
      16 * ctas_per_split * round >= 15 * slots) {
    return round;
  }
  return best;
}

bool combine_splits_in_clusters(int num_splits, std::int64_t work_items, int resident_clusters) {
  return num_splits > 1 && work_items > 0 && work_items <= resident_clusters;
}

bool decode_cache_evict_first(const KVCacheParams& params, std::int64_t l2_bytes) {
  const std::int64_t rows = std::int64_t{params.seqlen_q_new} * (params.heads / params.heads_kv);
  if (rows > kDecodeRowsPerCta || params.head_dim > kDecodeEvictFirstMaxHeadDim || l2_bytes <= 0)
    return false;
  const std::int64_t element = params.dtype == DType::fp32 ? 4 : 2;
  const std::int64_t cache_bytes = std::int64_t{params.batch} * params.heads_kv * params.max_seqlen_k *
                                   (params.head_dim + params.head_dim_v) * element;
  return cache_bytes <= kEvictFirstMaxL2Multiple * l2_bytes;
}

KVCachePlan plan_kvcache(const KVCacheParams& params, int num_sms) {
  KVCachePlan plan;
  const std::int64_t group = params.heads / params.heads_kv;
  const std::int64_t rows = std::int64_t{params.seqlen_q_new} * group;
  plan.row_blocks = static_cast<int>((rows + kDecodeRowsPerCta - 1) / kDecodeRowsPerCta);
  const std::int64_t ctas_per_split = std::int64_t{params.batch} * params.heads_kv * plan.row_blocks;
  plan.num_splits = params.num_splits > 0
                        ? params.num_splits
                        : choose_kvcache_splits(ctas_per_split, params.max_seqlen_k, num_sms,
                                                decode_ctas_per_sm(params.head_dim), params.head_dim,
                                                params.page_table != nullptr, params.head_dim_v);
  const std::size_t element = params.dtype == DType::fp32 ? 4 : 2;
  const std::size_t query_rows = static_cast<std::size_t>(params.batch) * params.seqlen_q_new * params.heads;
  std::size_t bytes = 0;
  if (params.rotary_cos != nullptr) {
    plan.q_rotated_offset = bytes;
    plan.q_rotated_bytes = query_rows * params.head_dim * element;
    bytes += align_up(plan.q_rotated_bytes);
  }
  if (plan.num_splits > 1) {
    const std::size_t partial_rows = query_rows * static_cast<std::size_t>(plan.num_splits);
    plan.lse_partial_offset = bytes;
    bytes += align_up(partial_rows * sizeof(float));
    plan.o_partial_offset = bytes;
    bytes += align_up(partial_rows * params.head_dim_v * sizeof(float));
  }
  plan.bytes = bytes;
  return plan;
}

int cuda_sm_count(int index) {
  static PerDeviceCache cache;
  return cache.get(index, [index] { return device_property(index, &CudaDeviceProperties::multiprocessors); });
}

int cuda_l2_bytes(int index) {
  static PerDeviceCache cache;
  return cache.get(index, [index] { return device_property(index, &CudaDeviceProperties::l2_cache_bytes); });
}

}  // namespace flashattn::core
