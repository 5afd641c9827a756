// flashattn CLI — benchmark tensors.
#include "bench_workload.hpp"

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
  ForwardArgs args;
  args.q = q_.view();
  args.k = k_.view();
  args.v = v_.view();
  args.out = out_.view();
  args.lse = lse_.view();
  args.causal = point_.causal;
  args.window_left = point_.window_left;
  args.window_right = point_.window_right;
  args.device = Device{DeviceKind::cpu, 0};
  args.num_threads = num_threads;
  return args;
}

BackwardArgs Workload::backward_args(int num_threads) {
  BackwardArgs args;
  static_cast<AttentionArgs&>(args) = forward_args(num_threads);
  args.out = out_.view();
  args.lse = lse_.view();
  args.dout = dout_.view();
  args.dq = dq_.view();
  args.dk = dk_.view();
  args.dv = dv_.view();
  return args;
}

Status Workload::prepare_backward(int num_threads) { return forward(forward_args(num_threads)); }

}  // namespace flashattn::cli
