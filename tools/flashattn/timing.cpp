// flashattn CLI — wall-clock sampling and its summary.
#include "timing.hpp"

#include <algorithm>
#include <cmath>

namespace flashattn::cli {
namespace {

// Percentile q in [0, 1] of sorted values, linear between the two nearest order statistics.
double percentile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

TimeSummary summarize(std::vector<double> samples_ms) {
  TimeSummary summary;
  summary.samples = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) return summary;
  std::sort(samples_ms.begin(), samples_ms.end());
  summary.median_ms = percentile(samples_ms, 0.5);
  summary.p10_ms = percentile(samples_ms, 0.1);
  summary.p90_ms = percentile(samples_ms, 0.9);
  return summary;
}

std::vector<double> sample_wall_clock(const std::function<void()>& body, int warmup, int samples) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> samples_ms;
  samples_ms.reserve(static_cast<std::size_t>(std::max(samples, 0)));
  for (int i = 0; i < samples; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    samples_ms.push_back(seconds_since(start) * 1e3);
  }
  return samples_ms;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace flashattn::cli
