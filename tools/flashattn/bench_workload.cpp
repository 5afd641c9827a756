// flashattn CLI — benchmark tensors.
#include "bench_workload.hpp"

#include <utility>

#include "core/numeric.hpp"
#include "testing/random.hpp"

namespace flashattn::cli {
namespace {

// Rounds a float to the nearest value of `dtype` (HostTensor::set takes representable values only).
double representable(DType dtype, float x) {
  switch (dtype) {
    case DType::fp16:
      return numeric::fp16_to_float(numeric::float_to_fp16(x));
    case DType::bf16:
      return numeric::bf16_to_float(numeric::float_to_bf16(x));
    default:
      return x;
  }
}

void fill_normal(testing::HostTensor& tensor, std::uint64_t seed, std::uint64_t stream) {
  testing::Rng rng(seed, stream);
  for (std::int64_t i = 0; i < tensor.numel(); ++i) {
    tensor.set(i, representable(tensor.dtype(), static_cast<float>(rng.normal())));
  }
}

}  // namespace

Workload::Workload(const BenchPoint& point, std::uint64_t seed) : point_(point) {
  const auto& p = point;
  const DType t = p.dtype;
  q_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_q, p.heads, p.head_dim});
  k_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_k, p.heads_kv, p.head_dim});
  v_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_k, p.heads_kv, p.head_dim});
  out_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_q, p.heads, p.head_dim});
  lse_ = testing::HostTensor::contiguous(DType::fp32, {p.batch, p.heads, p.seqlen_q});
  fill_normal(q_, seed, 0);
  fill_normal(k_, seed, 1);
  fill_normal(v_, seed, 2);
  if (p.op == testing::Op::backward) {
    dout_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_q, p.heads, p.head_dim});
    dq_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_q, p.heads, p.head_dim});
    dk_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_k, p.heads_kv, p.head_dim});
    dv_ = testing::HostTensor::contiguous(t, {p.batch, p.seqlen_k, p.heads_kv, p.head_dim});
    fill_normal(dout_, seed, 3);
  }
}

ForwardArgs Workload::forward_args(int num_threads) {
  ForwardArgs args = make_forward_args(host_views(), Device{DeviceKind::cpu, 0});
  args.num_threads = num_threads;
  return args;
}

BackwardArgs Workload::backward_args(int num_threads) {
  BackwardArgs args = make_backward_args(host_views(), Device{DeviceKind::cpu, 0});
  args.num_threads = num_threads;
  return args;
}

Status Workload::prepare_backward(int num_threads) { return forward(forward_args(num_threads)); }

Status Workload::copy_to_cuda() {
  if (cuda_tensors_) return Status::success();
  auto tensors = std::make_unique<testing::DeviceTensors>(kCudaDevice);
  if (Status status = tensors->supported(); !status.ok()) return status;
  // Bound once: DeviceTensors copies each host tensor when it is first bound (outputs too, unread).
  const bool forward_op = point_.op == testing::Op::forward;
  Views views;
  views.q = tensors->input(q_);
  views.k = tensors->input(k_);
  views.v = tensors->input(v_);
  views.out = forward_op ? tensors->output(out_) : tensors->input(out_);
  views.lse = forward_op ? tensors->output(lse_) : tensors->input(lse_);
  views.dout = tensors->input(dout_);
  views.dq = tensors->output(dq_);
  views.dk = tensors->output(dk_);
  views.dv = tensors->output(dv_);
  // DeviceTensors leaves a view's data null when its allocation or copy failed.
  for (const TensorView* view :
       {&views.q, &views.k, &views.v, &views.out, &views.lse, &views.dout, &views.dq, &views.dk, &views.dv}) {
    if (view->present() && view->data == nullptr) {
      return {StatusCode::internal, "bench: could not allocate the point's tensors on CUDA device 0"};
    }
  }
  cuda_tensors_ = std::move(tensors);
  cuda_views_ = views;
  return Status::success();
}

ForwardArgs Workload::cuda_forward_args(void* stream) const {
  ForwardArgs args = make_forward_args(cuda_views_, kCudaDevice);
  args.stream = stream;
  args.cuda_path = point_.cuda_path;
  return args;
}

BackwardArgs Workload::cuda_backward_args(void* stream) const {
  BackwardArgs args = make_backward_args(cuda_views_, kCudaDevice);
  args.stream = stream;
  args.cuda_path = point_.cuda_path;
  return args;
}

std::int64_t Workload::output_bytes() const {
  const auto bytes = [](const testing::HostTensor& t) { return static_cast<std::int64_t>(t.size_bytes()); };
  if (point_.op == testing::Op::forward) return bytes(out_) + bytes(lse_);
  return bytes(dq_) + bytes(dk_) + bytes(dv_);
}

ForwardArgs Workload::make_forward_args(const Views& views, Device device) const {
  ForwardArgs args;
  args.q = views.q;
  args.k = views.k;
  args.v = views.v;
  args.out = views.out;
  args.lse = views.lse;
  args.causal = point_.causal;
  args.window_left = point_.window_left;
  args.window_right = point_.window_right;
  args.device = device;
  return args;
}

BackwardArgs Workload::make_backward_args(const Views& views, Device device) const {
  BackwardArgs args;
  static_cast<AttentionArgs&>(args) = make_forward_args(views, device);
  args.out = views.out;
  args.lse = views.lse;
  args.dout = views.dout;
  args.dq = views.dq;
  args.dk = views.dk;
  args.dv = views.dv;
  return args;
}

Workload::Views Workload::host_views() {
  return {q_.view(),    k_.view(),  v_.view(),  out_.view(), lse_.view(),
          dout_.view(), dq_.view(), dk_.view(), dv_.view()};
}

}  // namespace flashattn::cli
