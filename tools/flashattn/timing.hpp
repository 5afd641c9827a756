// flashattn CLI — wall-clock sampling and its summary (median and spread), as every benchmark reports it.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

namespace flashattn::cli {

/// Summary of a set of timings, in milliseconds.
struct TimeSummary {
  double median_ms = 0;
  double p10_ms = 0;  ///< 10th percentile (linear interpolation between order statistics).
  double p90_ms = 0;  ///< 90th percentile.
  int samples = 0;
};

/// Median, p10 and p90 of `samples_ms` (empty -> all zero).
TimeSummary summarize(std::vector<double> samples_ms);

/// Runs `body` `warmup` times untimed, then `samples` times, each timed alone with steady_clock.
/// Returns the samples in milliseconds.
std::vector<double> sample_wall_clock(const std::function<void()>& body, int warmup, int samples);

/// Seconds elapsed since `start` on the steady clock.
double seconds_since(std::chrono::steady_clock::time_point start);

}  // namespace flashattn::cli
