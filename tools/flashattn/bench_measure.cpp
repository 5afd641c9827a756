// flashattn CLI — verification, memory and timing of one backend on one point.
#include "bench_measure.hpp"

#include <fmt/core.h>

#include "peak_memory.hpp"
#include "testing/device_timing.hpp"

namespace flashattn::cli {
namespace {

// Defaults of --warmup and --samples per kind of backend (bench_measure.hpp says why).
constexpr int kHostWarmup = 1;
constexpr int kHostSamples = 10;
constexpr int kCudaWarmup = 10;
constexpr int kCudaSamples = 20;

double gflops(const BenchPoint& point, const TimeSummary& time) {
  return time.median_ms > 0 ? point.flops() / (time.median_ms * 1e-3) * 1e-9 : 0;
}

// The CPU backends: one run under the resident-memory probe, then wall-clock samples.
void measure_on_host(BenchResult& r, Workload& workload, const BenchOptions& options) {
  {
    const PeakMemoryProbe probe;
    r.status = run_once(r.backend, workload, options.threads, r.info);
    r.peak_mem_bytes = probe.extra_bytes();
  }
  if (!r.status.ok()) return;
  r.timing = "wall clock";
  const auto samples = sample_wall_clock(
      [&] {
        RunInfo ignored;  // The first run above already reported what ran and that it succeeded.
        run_once(r.backend, workload, options.threads, ignored);
      },
      warmup_runs(r.backend, options), sample_count(r.backend, options));
  r.time = summarize(samples);
}

// The GPU: one run on the default stream for the run record, then CUDA-event samples on the timer's
// stream. No memory probe: the host's resident set says nothing about device memory.
void measure_on_cuda(BenchResult& r, Workload& workload, const BenchOptions& options) {
  r.status = run_once(r.backend, workload, options.threads, r.info);
  if (!r.status.ok()) return;
  testing::device_timing::Samples samples;
  r.status = testing::device_timing::time_call(
      kCudaDevice, [&](void* stream) { return run_cuda(workload, stream, nullptr); },
      {.warmup = warmup_runs(r.backend, options), .samples = sample_count(r.backend, options)}, samples);
  if (!r.status.ok()) return;
  r.timing = samples.graph ? "cuda graph" : "cuda events";
  r.graph_error = samples.graph_error;
  r.time = summarize(samples.ms);
}

}  // namespace

int warmup_runs(BenchBackend backend, const BenchOptions& options) {
  return options.warmup.value_or(backend == BenchBackend::cuda ? kCudaWarmup : kHostWarmup);
}

int sample_count(BenchBackend backend, const BenchOptions& options) {
  return options.samples.value_or(backend == BenchBackend::cuda ? kCudaSamples : kHostSamples);
}

std::string timing_method(BenchBackend backend, const BenchOptions& options) {
  const std::string counts = fmt::format("; {} warm-up, {} samples; median, p10, p90",
                                         warmup_runs(backend, options), sample_count(backend, options));
  if (backend == BenchBackend::cuda) return testing::device_timing::kMethod + counts;
  return "std::chrono::steady_clock wall time per call" + counts;
}

std::string memory_method(BenchBackend backend) {
  if (backend != BenchBackend::cuda) return kPeakMemoryMethod;
  return "peak_mem_bytes not measured: CUDA has no per-call peak counter, and cudaMemGetInfo around a call "
         "misses memory allocated and freed inside it; output_bytes is the size of the outputs the caller "
         "provides (out and lse, or dq, dk and dv)";
}

BenchResult measure(BenchBackend backend, Workload& workload, const BenchOptions& options) {
  BenchResult r;
  r.backend = backend;
  r.point = workload.point();
  r.output_bytes = workload.output_bytes();
  r.verification = verify(backend, workload.point(), options.threads);
  if (backend == BenchBackend::cuda) {
    measure_on_cuda(r, workload, options);
  } else {
    measure_on_host(r, workload, options);
  }
  r.gflops = gflops(r.point, r.time);
  return r;
}

}  // namespace flashattn::cli
