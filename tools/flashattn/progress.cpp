// flashattn CLI — progress line on a terminal's stderr.
#include "progress.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

#include "timing.hpp"

namespace flashattn::cli {

Progress::Progress(int total, bool enabled)
    : total_(total),
      shown_(enabled && isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
  // Clear the line so the table printed next starts clean.
  if (shown_) fmt::print(stderr, "\r\033[K");
}

void Progress::step(int index, const std::string& label) {
  if (!shown_) return;
  const double elapsed = seconds_since(start_);
  std::string estimate = "estimating";
  if (index > 0) estimate = fmt::format("~{:.0f}s left", elapsed / index * (total_ - index));
  fmt::print(stderr, "\r\033[K[{}/{}] {}  {:.0f}s elapsed, {}", index + 1, total_, label, elapsed, estimate);
  std::fflush(stderr);
}

}  // namespace flashattn::cli
