// flashattn testing — a small, portable random stream (SplitMix64 with Box-Muller normals), so a seed gives
// the same inputs with every compiler and standard library (std::normal_distribution does not).
#pragma once

#include <cstdint>
#include <vector>

namespace flashattn::testing {

class Rng {
 public:
  /// Independent streams of one seed: e.g. one per tensor of a case.
  Rng(std::uint64_t seed, std::uint64_t stream);

  std::uint64_t next_u64();
  /// Uniform in (0, 1): never exactly 0 or 1.
  double uniform();
  /// Standard normal; takes exactly two draws of next_u64 (kDrawsPerNormal).
  double normal();
  static constexpr std::uint64_t kDrawsPerNormal = 2;

  /// Skips `draws` draws of next_u64 in O(1): SplitMix64's state advances by a constant per draw, so a
  /// stream's chunks can be generated in parallel with the values of one sequential pass.
  void discard(std::uint64_t draws);

 private:
  std::uint64_t state_;
};

/// `count` standard normals: the values of `count` calls of rng.normal() in turn, whatever the thread count.
/// Drawn in parallel chunks, each from the stream advanced to its first value (a case's K and V reach 10^8
/// values, which one thread took seconds to draw).
std::vector<double> normal_draws(Rng rng, std::int64_t count);

}  // namespace flashattn::testing
