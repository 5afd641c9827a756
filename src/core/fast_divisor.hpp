// flashattn — division of non-negative 31-bit integers by a divisor fixed on the host, for device code.
//
// GPUs have no integer divide instruction: `n / d` by a runtime d compiles to a ~30-instruction sequence
// (a float reciprocal, its correction, the sign fix-up), and the Hopper forward's consumers ran two of them
// per tile just to decode the tile's index (ncu, docs/PERF.md session 17). With a multiplier and a shift
// computed once on the host, the quotient is one widening multiply and one shift (Granlund & Montgomery):
// multiplier = ceil(2^shift / d), shift = 31 + ceil(log2 d), exact for every 0 <= n < 2^31 because
// n * (multiplier * d - 2^shift) < 2^31 * d <= 2^shift. (CUTLASS's FastDivmod does the same, but its header
// needs the CUDA toolkit, and this one is also used by host code and tested in the CPU-only build.)
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace flashattn::core {

class FastDivisor {
 public:
  FastDivisor() = default;  // divides by 1
  /// Host: the constants for `divisor` >= 1.
  explicit FastDivisor(int divisor) : divisor_(divisor) {
    int log2_ceil = 0;
    while ((std::int64_t{1} << log2_ceil) < divisor) ++log2_ceil;
    shift_ = 31 + log2_ceil;
    multiplier_ = static_cast<std::uint32_t>(((std::uint64_t{1} << shift_) + divisor - 1) / divisor);
  }

  FLASHATTN_HOST_DEVICE int divisor() const { return divisor_; }
  /// n / divisor for 0 <= n < 2^31.
  FLASHATTN_HOST_DEVICE int div(int n) const {
    return static_cast<int>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(n)) * multiplier_) >>
                            shift_);
  }

 private:
  int divisor_ = 1;
  std::uint32_t multiplier_ = 1u << 31;  // ceil(2^31 / 1)
  int shift_ = 31;
};

}  // namespace flashattn::core
