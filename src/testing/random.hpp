// flashattn testing — a small, portable random stream (SplitMix64 with Box-Muller normals), so a seed gives
// the same inputs with every compiler and standard library (std::normal_distribution does not).
#pragma once

#include <cstdint>

namespace flashattn::testing {

class Rng {
 public:
  /// Independent streams of one seed: e.g. one per tensor of a case.
  Rng(std::uint64_t seed, std::uint64_t stream);

  std::uint64_t next_u64();
  /// Uniform in (0, 1): never exactly 0 or 1.
  double uniform();
  /// Standard normal.
  double normal();

 private:
  std::uint64_t state_;
};

}  // namespace flashattn::testing
