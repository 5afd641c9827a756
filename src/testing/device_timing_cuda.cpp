// flashattn testing — device_timing.hpp over the CUDA runtime (compiled in CUDA builds only).
#if defined(FLASHATTN_WITH_CUDA)

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "testing/device_timing.hpp"

namespace flashattn::testing::device_timing {
namespace {

// Longest the gate holds a stream. Enqueuing a call takes microseconds; reaching this means the call
// waited on the GPU while enqueuing (a synchronisation inside the op), which would otherwise deadlock.
constexpr auto kGateTimeout = std::chrono::seconds(10);

Status cuda_status(const char* what, cudaError_t error) {
  if (error == cudaSuccess) return Status::success();
  cudaGetLastError();  // Clear a non-sticky error so that later, unrelated calls do not report it.
  return {StatusCode::internal, std::string(what) + ": " + cudaGetErrorString(error)};
}

// Holds a stream until the host has enqueued a whole sample, so the start event fires only once the
// call's work is queued right behind it: the host side of the call (validation, dispatch, launch) stays
// out of the timed region even when it takes longer than the flush queued ahead of it.
class Gate {
 public:
  Status close(cudaStream_t stream) {
    timed_out_ = false;
    open_ = false;
    Status status = cuda_status("cudaLaunchHostFunc", cudaLaunchHostFunc(stream, &hold, this));
    if (!status.ok()) open_ = true;
    return status;
  }
  void open() { open_.store(true, std::memory_order_release); }
  /// Whether the last hold gave up waiting; valid once the stream has passed the gate.
  bool timed_out() const { return timed_out_; }

 private:
  // Runs on the CUDA runtime's callback thread; it must not call CUDA.
  static void CUDART_CB hold(void* self) {
    Gate& gate = *static_cast<Gate*>(self);
    const auto deadline = std::chrono::steady_clock::now() + kGateTimeout;
    while (!gate.open_.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > deadline) {
        gate.timed_out_ = true;
        return;
      }
      std::this_thread::yield();
    }
  }

  std::atomic<bool> open_{true};
  std::atomic<bool> timed_out_{false};
};

// The stream, events, gate, flush scratch and graph of one time_call, released on every path.
struct Resources {
  Gate gate;  // Declared first: it must outlive the stream's last hold, which the destructor waits for.
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t end = nullptr;
  void* scratch = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t graph_exec = nullptr;

  Resources() = default;
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;
  ~Resources() {
    gate.open();
    if (stream) cudaStreamSynchronize(stream);
    if (graph_exec) cudaGraphExecDestroy(graph_exec);
    if (graph) cudaGraphDestroy(graph);
    if (scratch) cudaFree(scratch);
    if (end) cudaEventDestroy(end);
    if (start) cudaEventDestroy(start);
    if (stream) cudaStreamDestroy(stream);
    cudaGetLastError();
  }

  Status create() {
    // Non-blocking: graph capture needs a stream other than the legacy default one.
    Status status =
        cuda_status("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (status.ok()) status = cuda_status("cudaEventCreate", cudaEventCreate(&start));
    if (status.ok()) status = cuda_status("cudaEventCreate", cudaEventCreate(&end));
    if (status.ok()) status = cuda_status("cudaMalloc (L2 flush scratch)", cudaMalloc(&scratch, kFlushBytes));
    return status;
  }
};

// Captures one call into a graph ready to launch. The stream leaves capture mode on every path.
Status capture(Resources& r, const Call& call) {
  Status status = cuda_status("cudaStreamBeginCapture",
                              cudaStreamBeginCapture(r.stream, cudaStreamCaptureModeThreadLocal));
  if (!status.ok()) return status;
  const Status called = call(r.stream);
  status = cuda_status("cudaStreamEndCapture", cudaStreamEndCapture(r.stream, &r.graph));
  if (!called.ok()) return called;
  if (!status.ok()) return status;
  return cuda_status("cudaGraphInstantiate", cudaGraphInstantiate(&r.graph_exec, r.graph, 0));
}

// One sample: flush L2, close the gate, start event, the work, end event, open the gate; the time between
// the two events.
Status sample(Resources& r, const std::function<Status()>& enqueue, double& ms) {
  Status status =
      cuda_status("cudaMemsetAsync (L2 flush)", cudaMemsetAsync(r.scratch, 0, kFlushBytes, r.stream));
  if (status.ok()) status = r.gate.close(r.stream);
  if (status.ok()) status = cuda_status("cudaEventRecord", cudaEventRecord(r.start, r.stream));
  if (status.ok()) status = enqueue();
  if (status.ok()) status = cuda_status("cudaEventRecord", cudaEventRecord(r.end, r.stream));
  r.gate.open();
  if (status.ok()) status = cuda_status("cudaEventSynchronize", cudaEventSynchronize(r.end));
  if (!status.ok()) return status;
  if (r.gate.timed_out()) {
    return {StatusCode::internal,
            "timing: the call waited on the GPU while enqueuing its work (a synchronisation inside the op), "
            "so its GPU time cannot be isolated"};
  }
  float elapsed_ms = 0;
  status = cuda_status("cudaEventElapsedTime", cudaEventElapsedTime(&elapsed_ms, r.start, r.end));
  ms = elapsed_ms;
  return status;
}

}  // namespace

Status time_call(Device device, const Call& call, const Options& options, Samples& samples) {
  samples = {};
  if (device.kind != DeviceKind::cuda) {
    return {StatusCode::invalid_argument, "device: time_call times calls on a CUDA device"};
  }
  Status status = cuda_status("cudaSetDevice", cudaSetDevice(device.index));
  // The caller's buffers were filled by copies on the legacy default stream, which a non-blocking stream
  // does not wait for.
  if (status.ok()) status = cuda_status("cudaDeviceSynchronize", cudaDeviceSynchronize());
  Resources r;
  if (status.ok()) status = r.create();
  for (int i = 0; status.ok() && i < options.warmup; ++i) status = call(r.stream);
  // A kernel fault of the warm-up surfaces here rather than as a wrong time.
  if (status.ok()) status = cuda_status("cudaStreamSynchronize", cudaStreamSynchronize(r.stream));
  if (!status.ok()) return status;

  std::function<Status()> enqueue = [&] { return call(r.stream); };
  double probe_ms = 0;
  if (status = sample(r, enqueue, probe_ms); !status.ok()) return status;
  if (probe_ms < kGraphBelowMs) {
    const Status captured = capture(r, call);
    if (captured.ok()) {
      samples.graph = true;
      enqueue = [&] { return cuda_status("cudaGraphLaunch", cudaGraphLaunch(r.graph_exec, r.stream)); };
      // The first launch uploads the graph to the device; keep that out of the samples.
      status = enqueue();
      if (status.ok()) status = cuda_status("cudaStreamSynchronize", cudaStreamSynchronize(r.stream));
      if (!status.ok()) return status;
    } else {
      samples.graph_error = captured.to_string();
    }
  }

  samples.ms.reserve(static_cast<std::size_t>(options.samples));
  for (int i = 0; i < options.samples; ++i) {
    double ms = 0;
    if (status = sample(r, enqueue, ms); !status.ok()) return status;
    samples.ms.push_back(ms);
  }
  return Status::success();
}

}  // namespace flashattn::testing::device_timing

#endif
