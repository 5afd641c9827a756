// flashattn CLI — one point of a benchmark sweep: the problem's shape and options, and the sweep that
// expands list-valued options into their Cartesian product.
#pragma once

#include <string>
#include <vector>

#include "testing/case.hpp"

namespace flashattn::cli {

struct BenchPoint {
  testing::Op op = testing::Op::forward;
  DType dtype = DType::fp32;
  int batch = 1;
  int heads = 8;
  int heads_kv = 8;
  int seqlen_q = 1024;
  int seqlen_k = 1024;
  int head_dim = 128;
  bool causal = false;
  int window_left = -1;  ///< -1 = unbounded.
  int window_right = -1;
  CudaPath cuda_path = CudaPath::automatic;  ///< Kernel family for the cuda backend.

  /// The point as a dense correctness case (same shapes and options).
  testing::Case to_case() const;
  /// FLOPs of one call: the exact masked forward count, times 2.5 for the backward (DESIGN.md §4).
  double flops() const;
};

/// The lists a sweep is built from; an empty heads_kv list means "= heads", an empty seqlen_k list
/// means "= seqlen_q".
struct SweepSpec {
  testing::Op op = testing::Op::forward;
  DType dtype = DType::fp32;
  std::vector<int> batch, heads, heads_kv, seqlen_q, seqlen_k, head_dim;
  bool causal = false;
  int window_left = -1;
  int window_right = -1;
  CudaPath cuda_path = CudaPath::automatic;
};

/// Every combination of the lists, in the order batch, heads, heads_kv, seqlen_q, seqlen_k, head_dim.
std::vector<BenchPoint> expand(const SweepSpec& spec);

}  // namespace flashattn::cli
