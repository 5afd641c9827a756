// flashattn — the device scratch of one CUDA call: the caller's buffer when it passed one (checked for size
// and alignment), else allocated on the call's stream and freed there after the call's last kernel (stream
// order keeps it alive for them). A caller's buffer keeps allocation out of the call, so a CUDA graph can
// capture it and no allocator runs per call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/common/launch_util.hpp"
#include "flashattn/status.hpp"

namespace flashattn::cuda {

class StreamWorkspace {
 public:
  /// `bytes` needed; `given` / `given_bytes`: the caller's buffer (used even when bytes is 0) or null;
  /// `size_function`: the public function that tells the caller the size (named in errors).
  StreamWorkspace(std::size_t bytes, void* given, std::size_t given_bytes, cudaStream_t stream,
                  const char* size_function)
      : stream_(stream) {
    if (given != nullptr) {
      if (given_bytes < bytes) {
        status_ = {StatusCode::invalid_argument, "workspace: " + std::to_string(given_bytes) +
                                                     " bytes given, this call needs " +
                                                     std::to_string(bytes) + " (" + size_function + ")"};
      } else if (bytes > 0 && reinterpret_cast<std::uintptr_t>(given) % 16 != 0) {
        status_ = {StatusCode::invalid_argument, "workspace: must be 16-byte aligned (16-byte vectors)"};
      }
      data_ = static_cast<char*>(given);
      return;
    }
    if (bytes == 0) return;
    const cudaError_t error = cudaMallocAsync(reinterpret_cast<void**>(&data_), bytes, stream);
    if (error != cudaSuccess) {
      status_ = cuda_error("cudaMallocAsync(workspace)", error);
      data_ = nullptr;
      return;
    }
    owned_ = true;
  }
  ~StreamWorkspace() {
    if (owned_) cudaFreeAsync(data_, stream_);
  }
  StreamWorkspace(const StreamWorkspace&) = delete;
  StreamWorkspace& operator=(const StreamWorkspace&) = delete;

  const Status& status() const { return status_; }
  char* data() const { return data_; }
  char* at(std::size_t offset) const { return data_ + offset; }

 private:
  cudaStream_t stream_;
  char* data_ = nullptr;
  bool owned_ = false;
  Status status_;
};

}  // namespace flashattn::cuda
