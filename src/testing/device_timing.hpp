// flashattn testing — timing one call on a CUDA device the way DESIGN.md §4 asks: CUDA events on a stream
// of its own, warm-up first, L2 flushed before every sample outside the timed region, and CUDA-graph replay
// for calls short enough that launch overhead would dominate them. device_timing_cuda.cpp implements it in
// CUDA builds; device_timing_host_only.cpp reports `unsupported` elsewhere. No CUDA type crosses this
// header, so the CLI can use it without the CUDA headers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "flashattn/attention.hpp"

namespace flashattn::testing::device_timing {

/// Enqueues one call on `stream` (a cudaStream_t as an opaque pointer, what AttentionArgs::stream takes)
/// and returns the API's status. It must not synchronise: it runs behind a gate the timer holds closed.
using Call = std::function<Status(void* stream)>;

/// Calls whose first timed sample is shorter than this are captured once in a CUDA graph and the samples
/// time replays of it (DESIGN.md §4: ~50 µs), so launch overhead does not dominate them.
inline constexpr double kGraphBelowMs = 0.05;
/// Scratch written before every sample to evict the inputs from L2: several times the largest L2 of the
/// targets (50 MiB on H100/H200), so nothing of the previous sample survives.
inline constexpr std::size_t kFlushBytes = std::size_t{256} << 20;

struct Options {
  int warmup = 10;   ///< Untimed calls first (lazy module loading, first-launch setup, clock ramp).
  int samples = 20;  ///< Timed samples, one call each.
};

/// How a call was timed, and the samples.
struct Samples {
  std::vector<double> ms;  ///< One per sample, in milliseconds.
  bool graph = false;      ///< Samples are CUDA-graph replays of one captured call.
  /// Set when the call was short enough for a graph but capturing it failed (samples are then plain
  /// event timings, which include launch overhead): the capture error.
  std::string graph_error;
};

/// How the samples are taken, for reports.
inline constexpr const char* kMethod =
    "CUDA events on a non-blocking stream of the timer's own; per sample: write a 256 MiB scratch buffer "
    "(L2 flush), hold the stream with a host-released gate, record start, the call (or a replay of its "
    "CUDA graph when one call is under 50 us), record end, release the gate; so neither the flush nor the "
    "host's enqueue time is in the timed region";

/// Times `call` on `device`: warm-up, one probe sample to choose between plain calls and graph replay,
/// then `options.samples` samples. Fails with the call's own status if it fails, `internal` on a CUDA
/// error (including a kernel fault surfacing at a synchronisation), `unsupported` without CUDA.
Status time_call(Device device, const Call& call, const Options& options, Samples& samples);

}  // namespace flashattn::testing::device_timing
