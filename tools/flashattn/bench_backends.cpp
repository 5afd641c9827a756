// flashattn CLI — benchmarkable backends.
#include "bench_backends.hpp"

#include "baseline/standard_attention.hpp"
#include "core/validate.hpp"
#include "flashattn/device.hpp"
#include "flashattn/version.hpp"

namespace flashattn::cli {
namespace {

RunInfo standard_run_info(testing::Op op, DType dtype) {
  RunInfo info;
  info.backend = Backend::cpu;
  info.kernel =
      std::string(op == testing::Op::forward ? "fwd" : "bwd") + "_standard_sgemm_" + to_string(dtype);
  info.launched = true;
  return info;
}

}  // namespace

const char* to_string(BenchBackend backend) {
  switch (backend) {
    case BenchBackend::cpu:
      return "cpu";
    case BenchBackend::standard:
      return "standard";
    case BenchBackend::cuda:
      return "cuda";
  }
  return "?";
}

std::optional<BenchBackend> parse_backend(const std::string& name) {
  for (BenchBackend b : {BenchBackend::cpu, BenchBackend::standard, BenchBackend::cuda}) {
    if (name == to_string(b)) return b;
  }
  return std::nullopt;
}

BenchBackend default_backend() {
  return build_info().cuda && cuda_device_count() > 0 ? BenchBackend::cuda : BenchBackend::cpu;
}

Status standard_forward_api(const ForwardArgs& args, RunInfo* info) {
  ForwardParams params;
  if (Status status = core::validate_forward(args, params); !status.ok()) return status;
  if (Status status = baseline::standard_forward(params); !status.ok()) return status;
  if (info) *info = standard_run_info(testing::Op::forward, params.dtype);
  return Status::success();
}

Status standard_backward_api(const BackwardArgs& args, RunInfo* info) {
  BackwardParams params;
  if (Status status = core::validate_backward(args, params); !status.ok()) return status;
  if (Status status = baseline::standard_backward(params); !status.ok()) return status;
  if (info) *info = standard_run_info(testing::Op::backward, params.dtype);
  return Status::success();
}

Status run_once(BenchBackend backend, Workload& workload, int num_threads, RunInfo& info) {
  const bool forward_op = workload.point().op == testing::Op::forward;
  switch (backend) {
    case BenchBackend::cpu:
      return forward_op ? forward(workload.forward_args(num_threads), &info)
                        : backward(workload.backward_args(num_threads), &info);
    case BenchBackend::standard:
      return forward_op ? standard_forward_api(workload.forward_args(num_threads), &info)
                        : standard_backward_api(workload.backward_args(num_threads), &info);
    case BenchBackend::cuda:
      return run_cuda(workload, nullptr, &info);
  }
  return {StatusCode::internal, "backend: unknown bench backend"};
}

Status run_cuda(Workload& workload, void* stream, RunInfo* info) {
  if (Status status = workload.copy_to_cuda(); !status.ok()) return status;
  return workload.point().op == testing::Op::forward ? forward(workload.cuda_forward_args(stream), info)
                                                     : backward(workload.cuda_backward_args(stream), info);
}

}  // namespace flashattn::cli
