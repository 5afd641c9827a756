// flashattn CLI — progress of a long sweep on stderr ("point i of n, elapsed, estimate"), shown only
// when stderr is a terminal so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <string>

namespace flashattn::cli {

class Progress {
 public:
  /// `total` steps; shown when `enabled` and stderr is a terminal.
  Progress(int total, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Announces step `index` (0-based) with a short label; the estimate assumes the remaining steps cost
  /// what the finished ones did on average.
  void step(int index, const std::string& label);

 private:
  int total_;
  bool shown_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace flashattn::cli
