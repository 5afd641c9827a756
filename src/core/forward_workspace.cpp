// flashattn — forward_workspace_size() (attention.hpp): the Hopper forward's cut-tile workspace for the call.
#include "core/fwd_split_tail_workspace.hpp"
#include "core/kvcache_plan.hpp"
#include "core/validate.hpp"
#include "flashattn/attention.hpp"

namespace flashattn {

std::size_t forward_workspace_size(const ForwardArgs& args) {
  if (args.device.kind != DeviceKind::cuda) return 0;
  ForwardParams params;
  if (!core::validate_forward(args, params).ok()) return 0;
  return core::fwd_split_tail_workspace_bound(params, core::cuda_sm_count(args.device.index));
}

}  // namespace flashattn
