#include "reference/rounding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flashattn::reference {
namespace {

// Rounds |x| to a binary format with `mantissa_bits` explicit fraction bits, smallest normal exponent
// `min_exponent` (subnormals below share its quantum) and overflow threshold `overflow` (the midpoint
// between the largest finite value and the next power of two: it and above round to infinity).
double round_binary(double x, int mantissa_bits, int min_exponent, double overflow) {
  if (!std::isfinite(x) || x == 0.0) return x;
  const double magnitude = std::fabs(x);
  if (magnitude >= overflow) return std::copysign(std::numeric_limits<double>::infinity(), x);
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
  const int quantum_exponent = std::max(exponent - 1, min_exponent) - mantissa_bits;
  // Scaling by a power of two is exact; nearbyint rounds half to even in the default rounding mode.
  const double rounded =
      std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantum_exponent)), quantum_exponent);
  return std::copysign(rounded, x);
}

}  // namespace

double round_to_fp16(double x) { return round_binary(x, 10, -14, 65520.0); }

double round_to_bf16(double x) {
  return round_binary(x, 7, -126, std::ldexp(2.0 - std::ldexp(1.0, -8), 127));
}

double round_to_fp32(double x) {
  return round_binary(x, 23, -126, std::ldexp(2.0 - std::ldexp(1.0, -24), 127));
}

double round_to(Precision precision, double x) {
  switch (precision) {
    case Precision::fp16:
      return round_to_fp16(x);
    case Precision::bf16:
      return round_to_bf16(x);
    case Precision::fp32:
      return round_to_fp32(x);
  }
  return x;
}

}  // namespace flashattn::reference
