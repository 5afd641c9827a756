// flashattn CLI — verification of a benchmark point before it is timed (DESIGN.md §3 rule, fp64 oracle).
// The oracle is naive fp64 attention: at B1 H8 S4096 D128 it would take far longer than the benchmark, so
// a point above a work budget is verified on a slice: the same backend, dtype, head dim, GQA ratio and
// mask, with fewer heads, batch 1 and sequence lengths capped (verification_case says which).
#pragma once

#include <string>

#include "bench_backends.hpp"
#include "bench_point.hpp"

namespace flashattn::cli {

struct Verification {
  bool passed = false;
  double max_abs_err = 0;  ///< Of the tensor closest to its bound.
  double bound = 0;        ///< Its bound on the max error.
  std::string tensor;      ///< "out", "lse", "dq", "dk" or "dv".
  std::string method;      ///< Which problem was checked, e.g. "slice: fp32 B1 H2 Sq1024 Sk1024 D128".
  std::string error;       ///< The backend's error, when it failed to run.
};

/// The case a point is verified on: the point itself when the oracle's work is small, else a slice.
testing::Case verification_case(const BenchPoint& point);

/// Runs `backend` on verification_case(point) and judges it against the oracle.
Verification verify(BenchBackend backend, const BenchPoint& point, int num_threads);

}  // namespace flashattn::cli
