#include "testing/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace flashattn::testing {

Comparison compare(std::string tensor, const std::vector<double>& x, const std::vector<double>& ref,
                   const std::vector<double>& base, double magnitude, double base_factor) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Comparison result;
  result.tensor = std::move(tensor);
  double base_max = 0, base_sum = 0, err_sum = 0, squared_err = 0, squared_ref = 0;
  std::int64_t counted = 0;
  for (std::size_t n = 0; n < ref.size(); ++n) {
    if (!std::isfinite(ref[n])) {
      if (!(x[n] == ref[n])) ++result.kind_mismatches;
      continue;
    }
    ++counted;
    const double err = std::isfinite(x[n]) ? std::fabs(x[n] - ref[n]) : kInf;
    if (!std::isfinite(x[n])) ++result.kind_mismatches;
    const double base_err = std::fabs(base[n] - ref[n]);
    result.max_err = std::max(result.max_err, err);
    err_sum += err;
    squared_err += err * err;
    squared_ref += ref[n] * ref[n];
    base_max = std::max(base_max, base_err);
    base_sum += base_err;
  }
  const double atol = kAtolNoiseFactor * kFp32Epsilon * magnitude;
  result.mean_err = counted ? err_sum / counted : 0.0;
  result.max_bound = base_factor * base_max + atol;
  result.mean_bound = base_factor * (counted ? base_sum / counted : 0.0) + atol;
  // Relative to the reference's energy; an all-zero reference leaves the plain squared error.
  result.nmse = squared_ref > 0 ? squared_err / squared_ref : squared_err;
  result.passed = result.kind_mismatches == 0 && result.max_err <= result.max_bound &&
                  result.mean_err <= result.mean_bound;
  return result;
}

}  // namespace flashattn::testing
