// flashattn CLI — the extra memory one call needs: the rise of the process' peak resident set over the
// resident set before the call. Linux only (procfs); elsewhere the probe reports itself unavailable.
#pragma once

#include <cstdint>
#include <optional>

namespace flashattn::cli {

/// How peak memory is measured, for the report's env.
inline constexpr const char* kPeakMemoryMethod =
    "Linux procfs: free heap returned to the OS (malloc_trim), VmHWM reset by writing 5 to "
    "/proc/self/clear_refs, then VmHWM after one run minus VmRSS before it";

/// Measures one call: construct (which resets the peak) just before the call, read extra_bytes() after.
class PeakMemoryProbe {
 public:
  PeakMemoryProbe();
  /// Peak resident bytes above the resident set at construction; nothing when procfs is unavailable.
  std::optional<std::int64_t> extra_bytes() const;

 private:
  std::optional<std::int64_t> rss_before_;
};

}  // namespace flashattn::cli
