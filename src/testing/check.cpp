#include "testing/check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "flashattn/flashattn.hpp"
#include "reference/reference.hpp"
#include "testing/case_run.hpp"
#include "testing/tolerance.hpp"

namespace flashattn::testing {
namespace {

void bind_attention(AttentionArgs& args, const Case& c, CaseTensors& t, DeviceTensors& device,
                    const Target& target) {
  args.q = device.input(t.q);
  args.k = device.input(t.k);
  args.v = device.input(t.v);
  args.cu_seqlens_q = device.input(t.cu_seqlens_q);
  args.cu_seqlens_k = device.input(t.cu_seqlens_k);
  args.seqused_k = device.input(t.seqused_k);
  if (c.is_varlen()) {
    args.max_seqlen_q = t.max_seqlen_q;
    args.max_seqlen_k = t.max_seqlen_k;
  }
  args.softmax_scale = c.softmax_scale;
  args.causal = c.causal;
  args.window_left = c.window_left;
  args.window_right = c.window_right;
  args.softcap = c.softcap;
  args.alibi_slopes = device.input(t.alibi_slopes);
  args.device = target.device;
  args.cuda_path = target.cuda_path;
  args.num_threads = target.num_threads;
}

// Runs `call` and stores its wall time in `seconds`.
template <class Call>
Status timed(Call call, double& seconds) {
  const auto start = std::chrono::steady_clock::now();
  Status status = call();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return status;
}

Comparison compare_tensor(std::string name, const HostTensor& tensor, std::vector<double> values,
                          const std::vector<double>& ref, const std::vector<double>& base, double magnitude,
                          double base_factor) {
  Comparison result = compare(std::move(name), values, ref, base, magnitude, base_factor);
  result.padding_intact = tensor.padding_intact();
  result.passed = result.passed && result.padding_intact;
  return result;
}

// Raw bytes of every output, padding included.
std::vector<std::vector<std::byte>> output_bytes(const CaseTensors& t) {
  std::vector<std::vector<std::byte>> bytes;
  for (const HostTensor* tensor : {&t.out, &t.lse, &t.dq, &t.dk, &t.dv}) {
    if (tensor->present()) bytes.emplace_back(tensor->bytes(), tensor->bytes() + tensor->size_bytes());
  }
  return bytes;
}

}  // namespace

ForwardArgs forward_args(const Case& c, CaseTensors& t, DeviceTensors& device, const Target& target) {
  ForwardArgs args;
  bind_attention(args, c, t, device, target);
  args.out = device.output(t.out);
  args.lse = device.output(t.lse);
  if (target.caller_workspace) {
    args.workspace_bytes = forward_workspace_size(args);
    args.workspace = device.scratch(args.workspace_bytes);
  }
  return args;
}

BackwardArgs backward_args(const Case& c, CaseTensors& t, DeviceTensors& device, const Target& target,
                           bool deterministic) {
  BackwardArgs args;
  bind_attention(args, c, t, device, target);
  args.out = device.input(t.out);
  args.lse = device.input(t.lse);
  args.dout = device.input(t.dout);
  args.dq = device.output(t.dq);
  args.dk = device.output(t.dk);
  args.dv = device.output(t.dv);
  args.deterministic = deterministic;  // before the workspace query: it adds the dQ semaphores
  if (target.caller_workspace) {
    args.workspace_bytes = backward_workspace_size(args);
    args.workspace = device.scratch(args.workspace_bytes);
  }
  return args;
}

std::vector<Comparison> judge_forward(const Case& c, const CaseTensors& t) {
  const reference::Problem& p = t.problem;
  const reference::ForwardResult ref = reference::forward(p);
  const reference::ForwardResult base = reference::base_forward(p, precision_of(c.dtype));
  const std::int64_t tokens = p.total_q();
  return {
      compare_tensor("out", t.out, read_operand(t.out, t.q_layout, tokens, p.heads, p.head_dim_v), ref.out,
                     base.out, ref.out_magnitude, kBaseErrorFactor),
      compare_tensor("lse", t.lse, read_lse(t.lse, t.q_layout, tokens, p.heads), ref.lse, base.lse,
                     ref.lse_magnitude, kBaseErrorFactor),
  };
}

std::vector<Comparison> judge_backward(const Case& c, const CaseTensors& t) {
  const reference::Problem& p = t.problem;
  const reference::BackwardResult ref = reference::backward(p, t.dout_values);
  const reference::BackwardResult base = reference::base_backward(p, t.dout_values, precision_of(c.dtype));
  const double factor = c.softcap > 0 ? kSoftcapBackwardBaseErrorFactor : kBaseErrorFactor;
  const std::int64_t q_tokens = p.total_q(), k_tokens = p.total_k();
  return {
      compare_tensor("dq", t.dq, read_operand(t.dq, t.q_layout, q_tokens, p.heads, p.head_dim), ref.dq,
                     base.dq, ref.dq_magnitude, factor),
      compare_tensor("dk", t.dk, read_operand(t.dk, t.k_layout, k_tokens, p.heads_kv, p.head_dim), ref.dk,
                     base.dk, ref.dk_magnitude, factor),
      compare_tensor("dv", t.dv, read_operand(t.dv, t.k_layout, k_tokens, p.heads_kv, p.head_dim_v), ref.dv,
                     base.dv, ref.dv_magnitude, factor),
  };
}

CaseResult run_case(const Case& c, Op op, const Target& target) {
  CaseResult result;
  result.spec = c;
  result.op = op;
  DeviceTensors device(target.device);
  result.status = device.supported();
  if (!result.status.ok()) return result;

  CaseTensors t = make_case_tensors(c, op);
  const ForwardArgs fwd = forward_args(c, t, device, target);
  result.status = timed([&] { return forward(fwd, &result.info); }, result.seconds);
  if (!result.status.ok()) return result;
  if (op == Op::backward) {
    const BackwardArgs bwd = backward_args(c, t, device, target, target.deterministic);
    result.status = timed([&] { return backward(bwd, &result.info); }, result.seconds);
    if (!result.status.ok()) return result;
  }
  device.download_outputs();

  result.comparisons = op == Op::forward ? judge_forward(c, t) : judge_backward(c, t);
  result.passed = true;
  for (const Comparison& comparison : result.comparisons) result.passed = result.passed && comparison.passed;
  return result;
}

bool reruns_bitwise_equal(const Case& c, Op op, const Target& target, int reruns) {
  DeviceTensors device(target.device);
  if (!device.supported().ok()) return false;
  CaseTensors t = make_case_tensors(c, op);
  const ForwardArgs fwd = forward_args(c, t, device, target);
  BackwardArgs bwd;
  if (op == Op::backward) {
    bwd = backward_args(c, t, device, target, /*deterministic=*/true);
  }
  std::vector<std::vector<std::byte>> first;
  for (int run = 0; run < reruns; ++run) {
    for (HostTensor* tensor : {&t.out, &t.lse, &t.dq, &t.dk, &t.dv}) {
      if (tensor->present()) tensor->poison();
    }
    device.upload_outputs();
    if (!forward(fwd).ok()) return false;
    if (op == Op::backward && !backward(bwd).ok()) return false;
    device.download_outputs();
    if (run == 0) {
      first = output_bytes(t);
    } else if (output_bytes(t) != first) {
      return false;
    }
  }
  return true;
}

std::string backward_rerun_differences(const Case& c, const Target& target, int reruns) {
  DeviceTensors device(target.device);
  if (!device.supported().ok()) return "device: " + device.supported().to_string();
  CaseTensors t = make_case_tensors(c, Op::backward);
  const ForwardArgs fwd = forward_args(c, t, device, target);
  const BackwardArgs bwd = backward_args(c, t, device, target, /*deterministic=*/false);
  std::vector<std::vector<std::byte>> first_fixed;  // out, lse, dk, dv
  std::vector<double> first_dq;
  double dq_magnitude = 0.0;
  for (int run = 0; run < reruns; ++run) {
    for (HostTensor* tensor : {&t.out, &t.lse, &t.dq, &t.dk, &t.dv}) {
      if (tensor->present()) tensor->poison();
    }
    device.upload_outputs();
    if (const Status s = forward(fwd); !s.ok()) return "forward: " + s.to_string();
    if (const Status s = backward(bwd); !s.ok()) return "backward: " + s.to_string();
    device.download_outputs();
    std::vector<std::vector<std::byte>> fixed;
    for (const HostTensor* tensor : {&t.out, &t.lse, &t.dk, &t.dv}) {
      if (tensor->present()) fixed.emplace_back(tensor->bytes(), tensor->bytes() + tensor->size_bytes());
    }
    std::vector<double> dq =
        read_operand(t.dq, t.q_layout, t.problem.total_q(), t.problem.heads, t.problem.head_dim);
    if (run == 0) {
      first_fixed = std::move(fixed);
      first_dq = std::move(dq);
      for (double value : first_dq) dq_magnitude = std::max(dq_magnitude, std::abs(value));
      continue;
    }
    if (fixed != first_fixed) return "run " + std::to_string(run) + ": out, lse, dK or dV changed";
    for (std::size_t i = 0; i < dq.size(); ++i) {
      const double bound = std::ldexp(std::abs(first_dq[i]), -6) + std::ldexp(dq_magnitude, -10);
      if (!(std::abs(dq[i] - first_dq[i]) <= bound)) {
        return "run " + std::to_string(run) + ": dQ element " + std::to_string(i) + " " +
               std::to_string(dq[i]) + " vs " + std::to_string(first_dq[i]);
      }
    }
  }
  return {};
}

std::string summary(const CaseResult& result) {
  std::ostringstream s;
  s << to_string(result.op) << ' ' << describe(result.spec) << " seed " << result.spec.seed << ": "
    << (result.passed ? "passed" : "FAILED") << '\n';
  if (!result.status.ok()) {
    s << "  status " << result.status.to_string() << '\n';
    return s.str();
  }
  s << "  ran " << to_string(result.info.backend) << ' ' << result.info.kernel << " in " << result.seconds
    << " s" << (result.info.launched ? "" : " (nothing launched)") << '\n';
  for (const Comparison& c : result.comparisons) {
    s << "  " << c.tensor << (c.passed ? " ok  " : " FAIL") << " max_err " << c.max_err
      << " <= " << c.max_bound << ", mean_err " << c.mean_err << " <= " << c.mean_bound << ", nmse "
      << c.nmse;
    if (c.kind_mismatches) s << ", " << c.kind_mismatches << " entries NaN/inf/-inf where the oracle differs";
    if (!c.padding_intact) s << ", wrote outside its view";
    s << '\n';
  }
  return s.str();
}

}  // namespace flashattn::testing
