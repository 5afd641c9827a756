// flashattn — the decode launch plan. See kvcache_plan.hpp.
#include "core/kvcache_plan.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/per_device_cache.hpp"
#include "flashattn/device.hpp"

namespace flashattn::core {
namespace {

constexpr std::size_t kWorkspaceAlignment = 256;  ///< cudaMalloc's alignment; every region keeps it.

std::size_t align_up(std::size_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

}  // namespace

int choose_kvcache_splits(std::int64_t ctas_per_split, std::int64_t capacity, int num_sms, int ctas_per_sm) {
  const std::int64_t slots = std::int64_t{std::max(num_sms, 1)} * std::max(ctas_per_sm, 1);
  if (ctas_per_split <= 0 || 5 * ctas_per_split >= 4 * slots) return 1;
  const std::int64_t tiles = (capacity + kDecodeKeysPerTile - 1) / kDecodeKeysPerTile;
  const int max_splits =
      static_cast<int>(std::clamp<std::int64_t>(tiles / kMinTilesPerSplit, 1, kMaxAutoSplits));
  auto efficiency = [&](int splits) {
    const double waves = static_cast<double>(ctas_per_split * splits) / static_cast<double>(slots);
    return waves / std::ceil(waves);
  };
  double best = 0.0;
  for (int s = 1; s <= max_splits; ++s) best = std::max(best, efficiency(s));
  for (int s = 1; s <= max_splits; ++s) {
    if (efficiency(s) >= 0.85 * best) return s;
  }
  return 1;
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
                                                decode_ctas_per_sm(params.head_dim));
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
  return cache.get(index, [index] {
    const auto props = index >= 0 ? cuda_device_properties(index) : std::nullopt;
    return props ? props->multiprocessors : 0;
  });
}

}  // namespace flashattn::core
