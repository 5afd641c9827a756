// flashattn CLI — the facts every report carries: what was built, on which machine, when, with which
// command line (DESIGN.md §4: a number without its context is not a result).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace flashattn::cli {

/// The CPU's model name from /proc/cpuinfo ("unknown" elsewhere).
std::string cpu_model();

/// The environment as JSON: version, commit, build type, compiler, CPU model, cores, OpenMP threads,
/// BLAS, OS, host, UTC date, CUDA devices, and `argv`.
nlohmann::json environment_json(const std::vector<std::string>& argv);

/// The CUDA devices visible, as JSON (an empty array without a GPU or in a CPU-only build).
nlohmann::json cuda_devices_json();

/// CUDA device `index` as JSON: index, name, sm, multiprocessors, max_shared_memory_per_block (opt-in,
/// bytes), l2_cache_bytes, memory_bytes, driver_version and runtime_version; null when it is not visible.
nlohmann::json cuda_device_json(int index);

}  // namespace flashattn::cli
