// flashattn CLI — the implementations `bench` can time on the same workload:
//   cpu       the flash CPU backend through the public API (flashattn::forward / backward, Device cpu)
//   standard  the unfused OpenBLAS baseline (src/baseline), the peer for speed and memory
//   cuda      the GPU backend through the public API, on CUDA device 0 (the workload's device copies)
#pragma once

#include <optional>
#include <string>

#include "bench_workload.hpp"
#include "flashattn/run_info.hpp"

namespace flashattn::cli {

enum class BenchBackend { cpu, standard, cuda };

const char* to_string(BenchBackend backend);
std::optional<BenchBackend> parse_backend(const std::string& name);

/// The best backend this machine has: cuda when it is built and a device is visible, else cpu.
BenchBackend default_backend();

/// Runs the workload's op once on `backend`; `info` says which kernel ran and whether it fell back. A cuda
/// call only enqueues work on the default stream: its kernels may still run when it returns.
Status run_once(BenchBackend backend, Workload& workload, int num_threads, RunInfo& info);

/// Enqueues the workload's op once on CUDA device 0 on `stream` (a cudaStream_t, nullptr = the default
/// stream), copying the workload there first if that has not happened yet. `info` may be null.
Status run_cuda(Workload& workload, void* stream, RunInfo* info);

/// The standard baseline behind the public signatures (validation included), so it can run wherever a
/// forward()/backward() can, e.g. under the correctness harness.
Status standard_forward_api(const ForwardArgs& args, RunInfo* info);
Status standard_backward_api(const BackwardArgs& args, RunInfo* info);

}  // namespace flashattn::cli
