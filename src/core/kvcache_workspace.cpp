// flashattn — kvcache_workspace_size() (kvcache.hpp): the decode plan's workspace for the call's shapes.
#include "core/kvcache_plan.hpp"
#include "core/validate.hpp"
#include "flashattn/kvcache.hpp"

namespace flashattn {

std::size_t kvcache_workspace_size(const KVCacheArgs& args) {
  if (args.device.kind != DeviceKind::cuda || args.out.numel() == 0) return 0;
  KVCacheParams params;
  if (!core::validate_kvcache(args, params).ok()) return 0;
  // The launcher plans with the same function and SM count, so the sizes agree.
  return core::plan_kvcache(params, core::cuda_sm_count(args.device.index)).bytes;
}

}  // namespace flashattn
