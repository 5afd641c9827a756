// flashattn CLI — `flashattn bench`: verified timings of one or more backends over a sweep of shapes, on
// shared inputs, with the memory each call needs and, for CPU backends, their share of the machine's sgemm
// ceiling.
#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "baseline/standard_attention.hpp"
#include "bench_backends.hpp"
#include "bench_measure.hpp"
#include "bench_point.hpp"
#include "bench_workload.hpp"
#include "commands.hpp"
#include "env_info.hpp"
#include "flashattn/device.hpp"
#include "json_report.hpp"
#include "progress.hpp"
#include "table.hpp"

namespace flashattn::cli {
namespace {

// Repeats of the sgemm ceiling measurement (median taken).
constexpr int kSgemmRepeats = 3;

DType parse_dtype(const std::string& name) {
  if (name == "bf16") return DType::bf16;
  if (name == "fp16") return DType::fp16;
  return DType::fp32;
}

std::vector<BenchBackend> parse_backends(const std::vector<std::string>& names) {
  std::vector<BenchBackend> backends;
  for (const std::string& name : names) backends.push_back(*parse_backend(name));
  if (backends.empty()) backends.push_back(default_backend());
  return backends;
}

std::string shape_label(const BenchPoint& p) { return testing::describe(p.to_case()); }

bool runs_on_host(BenchBackend backend) { return backend != BenchBackend::cuda; }

// A result's share of the sgemm ceiling: CPU backends only, since a GPU kernel's share of a CPU matmul
// means nothing. Empty when the ceiling was not measured or the call did not run.
std::optional<double> pct_of_sgemm(const BenchResult& r, std::optional<double> sgemm_gflops) {
  if (!runs_on_host(r.backend) || !sgemm_gflops || *sgemm_gflops <= 0 || !r.status.ok()) return std::nullopt;
  return 100.0 * r.gflops / *sgemm_gflops;
}

template <class T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const BenchResult& r, std::optional<double> sgemm_gflops) {
  const BenchPoint& p = r.point;
  nlohmann::json result = {{"backend", to_string(r.backend)},
                           {"kernel", r.info.kernel},
                           {"block_m", r.info.block_m},
                           {"block_n", r.info.block_n},
                           {"packed_heads", r.info.packed_heads},
                           {"cut_tiles", r.info.cut_tiles},
                           {"op", p.op == testing::Op::forward ? "fwd" : "bwd"},
                           {"dtype", to_string(p.dtype)},
                           {"batch", p.batch},
                           {"heads", p.heads},
                           {"heads_kv", p.heads_kv},
                           {"seqlen_q", p.seqlen_q},
                           {"seqlen_k", p.seqlen_k},
                           {"head_dim", p.head_dim},
                           {"causal", p.causal},
                           {"window", {p.window_left, p.window_right}},
                           {"path", to_string(p.cuda_path)},
                           {"time_ms",
                            {{"median", r.time.median_ms},
                             {"p10", r.time.p10_ms},
                             {"p90", r.time.p90_ms},
                             {"samples", r.time.samples}}},
                           {"timing", r.timing},
                           {"flops", p.flops()},
                           {"gflops", r.gflops},
                           {"pct_of_sgemm", or_null(pct_of_sgemm(r, sgemm_gflops))},
                           {"peak_mem_bytes", or_null(r.peak_mem_bytes)},
                           {"output_bytes", r.output_bytes},
                           {"verify",
                            {{"passed", r.verification.passed},
                             {"max_abs_err", r.verification.max_abs_err},
                             {"bound", r.verification.bound},
                             {"tensor", r.verification.tensor},
                             {"method", r.verification.method}}},
                           {"fallback", r.info.fell_back},
                           {"status", r.status.to_string()}};
  if (r.info.fell_back) result["fallback_reason"] = r.info.fallback_reason;
  if (!r.verification.error.empty()) result["verify"]["error"] = r.verification.error;
  if (!r.graph_error.empty()) result["graph_error"] = r.graph_error;
  return result;
}

void print_table(const std::vector<BenchResult>& results, std::optional<double> sgemm_gflops) {
  Table table({"backend", "kernel", "op", "problem", "median ms", "p10-p90 ms", "GFLOP/s", "% sgemm",
               "peak MiB", "verify"});
  for (const BenchResult& r : results) {
    const bool ran = r.status.ok();
    std::string verdict = r.verification.passed ? "pass" : "FAIL";
    if (r.info.fell_back) verdict += " (fell back)";
    table.add_row(
        {to_string(r.backend), ran ? r.info.kernel : r.status.to_string(),
         r.point.op == testing::Op::forward ? "fwd" : "bwd", shape_label(r.point),
         ran ? fmt::format("{:.2f}", r.time.median_ms) : "-",
         ran ? fmt::format("{:.2f}-{:.2f}", r.time.p10_ms, r.time.p90_ms) : "-",
         ran ? fmt::format("{:.1f}", r.gflops) : "-",
         pct_of_sgemm(r, sgemm_gflops) ? fmt::format("{:.1f}", *pct_of_sgemm(r, sgemm_gflops)) : "-",
         r.peak_mem_bytes ? fmt::format("{:.1f}", static_cast<double>(*r.peak_mem_bytes) / (1 << 20)) : "-",
         verdict});
  }
  table.print(stdout);
}

// Under the table: the ceiling, the GPU that ran, and any short call that had to be timed without a graph.
void print_footer(const std::vector<BenchResult>& results, std::optional<double> sgemm_gflops,
                  const BenchOptions& options, bool uses_cuda) {
  if (sgemm_gflops) {
    fmt::print("sgemm ceiling: {:.1f} GFLOP/s (n = {}, median of {})\n", *sgemm_gflops, options.sgemm_n,
               kSgemmRepeats);
  }
  if (uses_cuda) {
    const int index = kCudaDevice.index;
    if (const auto props = cuda_device_properties(index)) {
      fmt::print("cuda device {}: {} (sm{}{}, {} SMs), driver {}, runtime {}\n", index, props->name,
                 props->sm_major, props->sm_minor, props->multiprocessors, props->driver_version,
                 props->runtime_version);
    } else {
      fmt::print("cuda device {}: not visible\n", index);
    }
  }
  for (const BenchResult& r : results) {
    if (r.graph_error.empty()) continue;
    fmt::print(
        "note: {} {} is short enough for a CUDA graph but was timed without one (capture failed: {})\n",
        to_string(r.backend), shape_label(r.point), r.graph_error);
  }
}

// The report's env: the machine, and how each backend that ran was timed and its memory measured.
nlohmann::json bench_env(const std::vector<std::string>& argv, const std::vector<BenchBackend>& backends,
                         const BenchOptions& options) {
  nlohmann::json env = environment_json(argv);
  env["threads"] = options.threads;
  env["timing"] = nlohmann::json::object();
  env["peak_memory_method"] = nlohmann::json::object();
  for (BenchBackend backend : backends) {
    env["timing"][to_string(backend)] = timing_method(backend, options);
    env["peak_memory_method"][to_string(backend)] = memory_method(backend);
    if (backend == BenchBackend::cuda) env["cuda_device"] = cuda_device_json(kCudaDevice.index);
  }
  env["flops"] = "forward 4*B*H*Sq*Sk*D counted over kept keys only (causal/window); backward 2.5x";
  return env;
}

}  // namespace

int run_bench(const BenchOptions& options, const std::vector<std::string>& argv) {
  const std::vector<BenchBackend> backends = parse_backends(options.backends);
  const bool gpu_only = std::none_of(backends.begin(), backends.end(), runs_on_host);
  const bool uses_cuda = !std::all_of(backends.begin(), backends.end(), runs_on_host);
  SweepSpec spec;
  spec.op = options.op == "bwd" ? testing::Op::backward : testing::Op::forward;
  spec.dtype = parse_dtype(options.dtype.empty() ? (gpu_only ? "bf16" : "fp32") : options.dtype);
  spec.batch = options.batch;
  spec.heads = options.heads;
  spec.heads_kv = options.heads_kv;
  spec.seqlen_q = options.seqlen_q;
  spec.seqlen_k = options.seqlen_k;
  spec.cuda_path = options.path;
  spec.head_dim = options.head_dim;
  spec.causal = options.causal;
  if (options.window.size() == 2) {
    spec.window_left = options.window[0];
    spec.window_right = options.window[1];
  }
  const std::vector<BenchPoint> points = expand(spec);
  baseline::set_num_threads(options.threads);

  // The CPU ceiling first, on a quiet machine state, with the threads the backends get; only when a CPU
  // backend runs, as it says nothing about a GPU.
  std::optional<double> sgemm_gflops;
  if (!gpu_only) sgemm_gflops = baseline::measure_sgemm_gflops(options.sgemm_n, kSgemmRepeats);

  std::vector<BenchResult> results;
  {
    Progress progress(static_cast<int>(points.size() * backends.size()), !options.quiet);
    int step = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      Workload workload(points[i], /*seed=*/i + 1);
      if (spec.op == testing::Op::backward) {
        if (Status status = workload.prepare_backward(options.threads); !status.ok()) {
          throw std::runtime_error("bench: the forward that prepares the backward failed: " +
                                   status.to_string());
        }
      }
      for (BenchBackend backend : backends) {
        progress.step(step++, fmt::format("{} {}", to_string(backend), shape_label(points[i])));
        results.push_back(measure(backend, workload, options));
      }
    }
  }
  print_table(results, sgemm_gflops);
  print_footer(results, sgemm_gflops, options, uses_cuda);

  bool all_good = true;
  nlohmann::json result_json = nlohmann::json::array();
  for (const BenchResult& r : results) {
    all_good = all_good && r.status.ok() && r.verification.passed;
    result_json.push_back(to_json(r, sgemm_gflops));
  }
  if (!options.json_path.empty()) {
    nlohmann::json ceilings = {{"sgemm_gflops", or_null(sgemm_gflops)}, {"sgemm_n", options.sgemm_n}};
    if (!sgemm_gflops)
      ceilings["sgemm_note"] = "not measured: no CPU backend ran, and it says nothing about a GPU";
    write_json(
        options.json_path,
        {{"env", bench_env(argv, backends, options)}, {"ceilings", ceilings}, {"results", result_json}});
  }
  return all_good ? 0 : 1;
}

}  // namespace flashattn::cli
