// flashattn — the case lists of DESIGN.md §3, by tier: quick (CI, seconds), full (GPU machine),
// stress (long sequences, 64-bit offsets, reruns). Shared by the GoogleTest suites and `flashattn check`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "testing/case.hpp"

namespace flashattn::testing {

enum class Tier { quick, full, stress };

const char* to_string(Tier tier);

/// What the target can run: cases outside it are not generated.
struct Capabilities {
  std::vector<DType> dtypes;   ///< e.g. {fp32, fp16, bf16} on the CPU.
  std::vector<int> head_dims;  ///< Head dims built (D = Dv cases), e.g. {64, 96, 128, 192, 256}.
  /// Further (D, Dv) pairs built, e.g. {192, 128}; the CPU takes any, e.g. odd or D != Dv ones.
  std::vector<std::pair<int, int>> head_dim_pairs;
};

/// What the CPU backend runs: fp32, fp16 and bf16, any head dim (a spread of the usual ones plus odd and
/// D != Dv pairs).
Capabilities cpu_capabilities();

/// What `device` runs for `op` through the given CUDA path, asked through is_supported() on empty probes:
/// the CPU's capabilities, or the dtypes and head dims with a built kernel for the device.
Capabilities capabilities(Device device, CudaPath path, Op op);

/// The sweep for `tier` and `op`, restricted to `caps`. Every case has a distinct seed (also across tiers
/// and ops). Each tier contains the one below it. Reruns for determinism are the runner's job
/// (reruns_bitwise_equal), not a property of a case.
std::vector<Case> sweep(Tier tier, Op op, const Capabilities& caps);

}  // namespace flashattn::testing
