#include "testing/random.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace flashattn::testing {

namespace {
constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ull;  // SplitMix64's increment per draw
}  // namespace

Rng::Rng(std::uint64_t seed, std::uint64_t stream)
    : state_(seed * 0x9e3779b97f4a7c15ull ^ (stream + 1) * 0xd1b54a32d192ed03ull) {}

std::uint64_t Rng::next_u64() {
  std::uint64_t z = (state_ += kGamma);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void Rng::discard(std::uint64_t draws) { state_ += draws * kGamma; }  // wraps mod 2^64, as the draws do

double Rng::uniform() { return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1p-53; }

double Rng::normal() {
  // Box-Muller; one of the pair is dropped to keep the stream stateless beyond `state_`.
  return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * std::numbers::pi * uniform());
}

std::vector<double> normal_draws(Rng rng, std::int64_t count) {
  constexpr std::int64_t kChunk = std::int64_t{1} << 16;
  std::vector<double> values(static_cast<std::size_t>(count));
  const std::int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    const std::int64_t begin = chunk * kChunk, end = std::min(count, begin + kChunk);
    Rng chunk_rng = rng;
    chunk_rng.discard(static_cast<std::uint64_t>(begin) * Rng::kDrawsPerNormal);
    for (std::int64_t i = begin; i < end; ++i) values[i] = chunk_rng.normal();
  }
  return values;
}

}  // namespace flashattn::testing
