// flashattn — backward_workspace_size() (attention.hpp): the CUDA backward's workspace for the call's shapes.
#include "core/bwd_workspace.hpp"
#include "core/validate.hpp"
#include "flashattn/attention.hpp"

namespace flashattn {

std::size_t backward_workspace_size(const BackwardArgs& args) {
  if (args.device.kind != DeviceKind::cuda) return 0;
  BackwardParams params;
  if (!core::validate_backward(args, params).ok()) return 0;
  // Enough for every backward kernel, whichever dispatch selects (BwdWorkspace::kMinBlockM).
  return core::BwdWorkspace::max_bytes(params);
}

}  // namespace flashattn
