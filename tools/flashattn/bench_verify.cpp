// flashattn CLI — verification of benchmark points.
#include "bench_verify.hpp"

#include <algorithm>
#include <utility>

#include "testing/case_run.hpp"

namespace flashattn::cli {
namespace {

// Multiply-adds of the naive oracle (B * H * Sq * Sk * D) above which a slice is verified instead: a few
// seconds of fp64 work on a small machine, forward and base together.
constexpr double kFullOracleBudget = 3e8;
// Sequence lengths of a slice: long enough for many tiles and every mask shape.
constexpr int kSliceSeqlen = 1024;

double oracle_work(const testing::Case& c) {
  return static_cast<double>(c.batch) * c.heads * c.seqlen_q * c.seqlen_k * c.head_dim;
}

// The standard baseline is not reachable through flashattn::forward, so run_case cannot drive it; this is
// run_case's sequence made of its own pieces (case_run.hpp) with the baseline in the API's place: the same
// case tensors (random inputs, NaN-poisoned outputs), oracle, base and calibrated judgement.
testing::CaseResult run_standard_case(const testing::Case& c, testing::Op op) {
  testing::CaseResult result;
  result.spec = c;
  result.op = op;
  const testing::Target target;  // The CPU: the baseline reads host memory.
  testing::DeviceTensors device(target.device);
  testing::CaseTensors t = testing::make_case_tensors(c, op);
  result.status = standard_forward_api(testing::forward_args(c, t, device, target), &result.info);
  if (result.status.ok() && op == testing::Op::backward) {
    result.status = standard_backward_api(testing::backward_args(c, t, device, target), &result.info);
  }
  if (!result.status.ok()) return result;
  result.comparisons =
      op == testing::Op::forward ? testing::judge_forward(c, t) : testing::judge_backward(c, t);
  result.passed = std::all_of(result.comparisons.begin(), result.comparisons.end(),
                              [](const testing::Comparison& comparison) { return comparison.passed; });
  return result;
}

}  // namespace

testing::Case verification_case(const BenchPoint& point) {
  testing::Case c = point.to_case();
  if (oracle_work(c) <= kFullOracleBudget) return c;
  // Keep the GQA ratio with at most two kv heads, and the mask's geometry (Sk - Sq keeps its sign) by
  // scaling both lengths by the same factor.
  const int group = point.heads / std::max(point.heads_kv, 1);
  c.batch = 1;
  c.heads_kv = std::min(point.heads_kv, 2);
  c.heads = c.heads_kv * std::min(group, 2);
  const double shrink =
      std::min(1.0, static_cast<double>(kSliceSeqlen) / std::max(point.seqlen_q, point.seqlen_k));
  c.seqlen_q = std::max(1, static_cast<int>(point.seqlen_q * shrink));
  c.seqlen_k = std::max(1, static_cast<int>(point.seqlen_k * shrink));
  return c;
}

Verification verify(BenchBackend backend, const BenchPoint& point, int num_threads) {
  const testing::Case c = verification_case(point);
  testing::CaseResult result;
  if (backend == BenchBackend::standard) {
    result = run_standard_case(c, point.op);
  } else {
    testing::Target target;
    target.device = backend == BenchBackend::cuda ? kCudaDevice : Device{DeviceKind::cpu, 0};
    target.num_threads = num_threads;
    target.cuda_path = point.cuda_path;
    result = testing::run_case(c, point.op, target);
  }
  Verification v;
  v.passed = result.passed;
  const bool slice = oracle_work(point.to_case()) > kFullOracleBudget;
  v.method = std::string(slice ? "slice" : "full problem") + " (" + testing::describe(c) +
             ") vs fp64 oracle, calibrated rule";
  if (!result.status.ok()) v.error = result.status.to_string();
  // Report the tensor that failed, else the one closest to its bound.
  std::pair<bool, double> worst{false, -1.0};
  for (const testing::Comparison& comparison : result.comparisons) {
    const double ratio =
        comparison.max_bound > 0 ? comparison.max_err / comparison.max_bound : comparison.max_err;
    const std::pair<bool, double> rank{!comparison.passed, ratio};
    if (rank > worst) {
      worst = rank;
      v.max_abs_err = comparison.max_err;
      v.bound = comparison.max_bound;
      v.tensor = comparison.tensor;
    }
  }
  return v;
}

}  // namespace flashattn::cli
