// flashattn testing — the calibrated tolerance rule of DESIGN.md §3, per output tensor:
//   max |x - ref| <= factor * max |base - ref| + atol   and   mean |x - ref| <= factor * mean |base - ref| +
//   atol
// with ref the fp64 oracle, base the same naive attention in the input dtype with fp32 accumulation, and
// atol twice the fp32 rounding noise at the tensor's magnitude. -inf entries (lse of rows with no key)
// must match exactly: -inf where the oracle has -inf, finite elsewhere.
#pragma once

#include <string>
#include <vector>

#include "testing/check.hpp"

namespace flashattn::testing {

/// How many times the base's error a correct kernel may show (it rounds in a different order).
inline constexpr double kBaseErrorFactor = 2.0;
/// The same for the backward with softcap: tanh' = 1 - tanh² multiplies dS and amplifies the rounding
/// of the recomputed scores, differently for each summation order; the issue allows 3.
inline constexpr double kSoftcapBackwardBaseErrorFactor = 3.0;
/// fp32 machine epsilon: the relative rounding noise of one fp32 operation.
inline constexpr double kFp32Epsilon = 0x1p-23;
/// atol = kAtolNoiseFactor * kFp32Epsilon * magnitude.
inline constexpr double kAtolNoiseFactor = 2.0;

/// Judges `x` against `ref` and `base` (same canonical layout and size). `magnitude` is the oracle's
/// largest sum of |terms| behind an element (>= max |ref|; 0 for an all-zero tensor, which then has to be
/// exactly zero). A non-finite x where ref is finite (e.g. an unwritten, NaN-poisoned element) is an
/// infinite error; -inf entries of ref are checked for kind and left out of the statistics.
Comparison compare(std::string tensor, const std::vector<double>& x, const std::vector<double>& ref,
                   const std::vector<double>& base, double magnitude, double base_factor);

}  // namespace flashattn::testing
