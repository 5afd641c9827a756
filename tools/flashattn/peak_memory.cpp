// flashattn CLI — peak-memory probe over /proc/self (see peak_memory.hpp).
#include "peak_memory.hpp"

#include <malloc.h>

#include <fstream>
#include <string>

namespace flashattn::cli {
namespace {

// A "Name:   1234 kB" field of /proc/self/status, in bytes.
std::optional<std::int64_t> status_field_bytes(const std::string& name) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(name + ":", 0) != 0) continue;
    return std::stoll(line.substr(name.size() + 1)) * 1024;
  }
  return std::nullopt;
}

}  // namespace

PeakMemoryProbe::PeakMemoryProbe() {
  // Memory freed by earlier calls but still held by malloc would hide this call's allocations.
  malloc_trim(0);
  std::ofstream clear_refs("/proc/self/clear_refs");
  if (!(clear_refs << "5" << std::flush)) return;
  rss_before_ = status_field_bytes("VmRSS");
}

std::optional<std::int64_t> PeakMemoryProbe::extra_bytes() const {
  if (!rss_before_) return std::nullopt;
  const auto peak = status_field_bytes("VmHWM");
  if (!peak) return std::nullopt;
  return *peak > *rss_before_ ? *peak - *rss_before_ : 0;
}

}  // namespace flashattn::cli
