// flashattn CLI — measuring one backend on one point: verify it against the oracle first, then time it on
// the backend's own clock (the wall clock for CPU backends; CUDA events, with graph replay for short calls,
// on the GPU) and record the memory one call needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "bench_backends.hpp"
#include "bench_point.hpp"
#include "bench_verify.hpp"
#include "bench_workload.hpp"
#include "commands.hpp"
#include "timing.hpp"

namespace flashattn::cli {

struct BenchResult {
  BenchBackend backend = BenchBackend::cpu;
  BenchPoint point;
  RunInfo info;
  Status status;
  Verification verification;
  TimeSummary time;
  std::string timing;       ///< How the samples were taken: "wall clock", "cuda events", "cuda graph".
  std::string graph_error;  ///< cuda: why a call short enough for a graph was timed without one.
  std::optional<std::int64_t> peak_mem_bytes;  ///< CPU backends: extra resident memory of one call.
  std::int64_t output_bytes = 0;               ///< Bytes of the outputs one call writes.
  double gflops = 0;
};

/// Untimed runs before the samples when --warmup is not given: one on the CPU; ten on a GPU, where the
/// first calls also load modules lazily and let the clock leave its idle state.
int warmup_runs(BenchBackend backend, const BenchOptions& options);
/// Timed samples when --samples is not given: 10 on the CPU (slow calls), 20 on a GPU (DESIGN.md §4).
int sample_count(BenchBackend backend, const BenchOptions& options);

/// How `backend` is timed and how its memory is measured, for the report's env.
std::string timing_method(BenchBackend backend, const BenchOptions& options);
std::string memory_method(BenchBackend backend);

/// Verifies `backend` on the point (bench_verify.hpp), runs it once (probing its memory on the CPU), then
/// times it. A failing verification is reported, not fatal; a failing call leaves the time empty.
BenchResult measure(BenchBackend backend, Workload& workload, const BenchOptions& options);

}  // namespace flashattn::cli
