// flashattn — runs a case through the public API on a device and judges it against the fp64 oracle with
// the calibrated rule of DESIGN.md §3:
//   max|out - ref|  <= 2 * max|base - ref|  + atol, and the same for the mean,
// where base is naive attention in the input dtype with fp32 accumulation and atol is twice the fp32
// rounding noise at the output's magnitude. Outputs are poisoned with NaN before the run, so an element
// left unwritten fails the case.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testing/case.hpp"

namespace flashattn::testing {

/// Where and how a case runs.
struct Target {
  Device device;  ///< cpu, or a CUDA device (inputs are copied there and back).
  CudaPath cuda_path = CudaPath::automatic;
  int num_threads = 0;
  /// forward() and backward() get a workspace of forward_workspace_size() / backward_workspace_size() bytes
  /// from the caller instead of allocating one (the same buffer, stale contents and all, for every rerun).
  bool caller_workspace = false;
  /// backward() runs with deterministic = true (ordered dQ additions).
  bool deterministic = false;
};

/// Error statistics of one output tensor (out, lse, dq, dk or dv) against the oracle.
struct Comparison {
  std::string tensor;
  double max_err = 0;     ///< max |x - ref| over the tensor's finite reference entries.
  double mean_err = 0;    ///< mean |x - ref|.
  double max_bound = 0;   ///< 2 * max|base - ref| + atol.
  double mean_bound = 0;  ///< 2 * mean|base - ref| + atol.
  double nmse = 0;        ///< sum (x - ref)^2 / sum ref^2 (diagnostic).
  bool passed = false;    ///< Both bounds hold, every -inf / finite entry matches in kind, padding intact.
  /// Entries whose kind differs from the oracle's: NaN or inf where it is finite (e.g. never written),
  /// finite where it is -inf (lse of a row with no key).
  std::int64_t kind_mismatches = 0;
  /// False when an element outside the tensor's view (its padding) was overwritten.
  bool padding_intact = true;
};

struct CaseResult {
  Case spec;
  Op op = Op::forward;
  Status status;                        ///< The API's status (an error fails the case).
  RunInfo info;                         ///< What ran.
  std::vector<Comparison> comparisons;  ///< One per output tensor checked.
  bool passed = false;
  double seconds = 0;  ///< Wall time of the API call alone.
};

/// Runs `c` through forward() (and, for Op::backward, backward() on the forward's result with a random
/// dout) and compares every output with the oracle.
CaseResult run_case(const Case& c, Op op, const Target& target);

/// Multi-line report of a result: the case, the status, what ran and every comparison (for logs and
/// test failures).
std::string summary(const CaseResult& result);

/// Runs `c` `reruns` times on the same inputs and reports whether every output is bitwise identical.
bool reruns_bitwise_equal(const Case& c, Op op, const Target& target, int reruns);

/// Runs the forward and the backward (deterministic = false) of `c` `reruns` times on the same inputs and
/// reports whether out, lse, dK and dV are bitwise identical every time (each is a sum in a fixed order)
/// and dQ, whose fp32 additions arrive in any order, differs from the first run by rounding only: every
/// element within 2^-6 of its first value plus 2^-10 of the first dQ's largest magnitude (a few ulp of
/// bf16 or fp16 after the conversion, with room for cancellation near zero). An empty string when so, else
/// what differed first.
std::string backward_rerun_differences(const Case& c, const Target& target, int reruns);

}  // namespace flashattn::testing
