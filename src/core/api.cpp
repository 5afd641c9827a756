// flashattn — the public entry points: validate, select, launch, record.
#include "core/device_context.hpp"
#include "core/dispatch.hpp"
#include "core/run_record.hpp"
#include "core/validate.hpp"
#include "flashattn/attention.hpp"
#include "flashattn/kvcache.hpp"

namespace flashattn {
namespace {

RunInfo describe(const core::Selection& selection) {
  RunInfo info;
  info.backend = selection.key->backend;
  info.kernel = selection.key->name();
  info.fell_back = selection.fell_back;
  info.fallback_reason = selection.fallback_reason;
  return info;
}

/// Shared by forward and backward: select, then launch unless the call has no output element.
template <typename Params, typename Launcher>
Status run(core::OpKind op, const Params& params, const AttentionArgs& args, bool empty,
           Launcher (*find)(const core::KernelKey&), RunInfo* info) {
  const core::Selection selection =
      core::select_kernel(op, params, core::device_context(args.device, args.cuda_path));
  if (!selection.key) return selection.status;
  RunInfo record = describe(selection);
  if (!empty) {
    Launcher launch = find(*selection.key);
    if (launch == nullptr)
      return {StatusCode::internal, "dispatch selected " + record.kernel + " but it is not built"};
    Status status = launch(params, args, record);
    if (!status.ok()) return status;
    record.launched = true;
    if (record.fell_back) record_fallback();
  }
  if (info) *info = record;
  return {};
}

/// B = 0, Sq = 0 or total_q = 0. For host-resident varlen offsets total_q is cu_seqlens_q[B] (rows of a
/// larger q tensor past it belong to no sequence); device-resident offsets are not read.
bool has_no_query_rows(const ForwardArgs& args, const ForwardParams& params) {
  if (args.out.numel() == 0) return true;
  return params.is_varlen() && args.device.kind == DeviceKind::cpu && params.cu_seqlens_q[params.batch] == 0;
}

template <typename Params>
Status check_only(core::OpKind op, const Params& params, const AttentionArgs& args) {
  const core::Selection selection =
      core::select_kernel(op, params, core::device_context(args.device, args.cuda_path));
  return selection.key ? Status{} : selection.status;
}

}  // namespace

const char* to_string(CudaPath path) {
  return path == CudaPath::hopper ? "hopper" : path == CudaPath::portable ? "portable" : "auto";
}

Status forward(const ForwardArgs& args, RunInfo* info) {
  ForwardParams params;
  Status status = core::validate_forward(args, params);
  if (!status.ok()) return status;
  return run(core::OpKind::forward, params, args, has_no_query_rows(args, params),
             core::find_forward_launcher, info);
}

Status backward(const BackwardArgs& args, RunInfo* info) {
  BackwardParams params;
  Status status = core::validate_backward(args, params);
  if (!status.ok()) return status;
  const bool empty = args.dq.numel() == 0 && args.dk.numel() == 0 && args.dv.numel() == 0;
  return run(core::OpKind::backward, params, args, empty, core::find_backward_launcher, info);
}

Status is_supported(const ForwardArgs& args) {
  ForwardParams params;
  Status status = core::validate_forward(args, params);
  return status.ok() ? check_only(core::OpKind::forward, params, args) : status;
}

Status is_supported(const BackwardArgs& args) {
  BackwardParams params;
  Status status = core::validate_backward(args, params);
  return status.ok() ? check_only(core::OpKind::backward, params, args) : status;
}

Status forward_kvcache(const KVCacheArgs& args, RunInfo* info) {
  KVCacheParams params;
  Status status = core::validate_kvcache(args, params);
  if (!status.ok()) return status;
  // B = 0 or Sq = 0: nothing to append and no query row.
  return run(core::OpKind::kvcache, params, args, args.out.numel() == 0, core::find_kvcache_launcher, info);
}

Status is_supported(const KVCacheArgs& args) {
  KVCacheParams params;
  Status status = core::validate_kvcache(args, params);
  return status.ok() ? check_only(core::OpKind::kvcache, params, args) : status;
}

}  // namespace flashattn
