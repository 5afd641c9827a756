// flashattn — Status and the process-wide fallback counter.
#include <atomic>

#include "core/run_record.hpp"
#include "flashattn/run_info.hpp"
#include "flashattn/status.hpp"

namespace flashattn {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::ok:
      return "ok";
    case StatusCode::invalid_argument:
      return "invalid_argument";
    case StatusCode::unsupported:
      return "unsupported";
    case StatusCode::internal:
      return "internal";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(flashattn::to_string(code_)) + ": " + message_;
}

const char* to_string(Backend backend) { return backend == Backend::cpu ? "cpu" : "cuda"; }

namespace {
std::atomic<std::uint64_t> g_fallbacks{0};
}

std::uint64_t fallback_count() { return g_fallbacks.load(std::memory_order_relaxed); }

void record_fallback() { g_fallbacks.fetch_add(1, std::memory_order_relaxed); }

}  // namespace flashattn
