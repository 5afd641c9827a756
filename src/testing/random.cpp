#include "testing/random.hpp"

#include <cmath>
#include <numbers>

namespace flashattn::testing {

Rng::Rng(std::uint64_t seed, std::uint64_t stream)
    : state_(seed * 0x9e3779b97f4a7c15ull ^ (stream + 1) * 0xd1b54a32d192ed03ull) {}

std::uint64_t Rng::next_u64() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Rng::uniform() { return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1p-53; }

double Rng::normal() {
  // Box-Muller; one of the pair is dropped to keep the stream stateless beyond `state_`.
  return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * std::numbers::pi * uniform());
}

}  // namespace flashattn::testing
