// flashattn — host helpers shared by the CUDA launchers: CUDA errors as Status, a guard that makes the
// call's device current for the duration of a launch, and which PTX architecture a kernel runs from.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/per_device_cache.hpp"
#include "flashattn/status.hpp"

namespace flashattn::cuda {

inline Status cuda_error(const char* what, cudaError_t error) {
  return {StatusCode::internal, std::string(what) + ": " + cudaGetErrorString(error)};
}

/// Makes `device` current for the lifetime of the guard and restores the caller's device after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    cudaGetDevice(&previous_);
    if (previous_ != device) status_ = cudaSetDevice(device);
  }
  ~DeviceGuard() {
    int current = previous_;
    cudaGetDevice(&current);
    if (current != previous_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  cudaError_t status() const { return status_; }

 private:
  int previous_ = 0;
  cudaError_t status_ = cudaSuccess;
};

/// The virtual architecture (e.g. 90 for compute_90a) whose code `kKernel` runs from on `device`, so that a
/// launcher can tell whether code under `__CUDA_ARCH__ >= N` is in the binary this device runs: a build for
/// compute_80 only, JIT-compiled on an sm90 part, reports 80. Cached per kernel and device (it cannot change
/// within a process). 0 when the runtime cannot say.
template <auto* kKernel>
int kernel_ptx_version(int device) {
  static core::PerDeviceCache cache;
  return cache.get(device, [] {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, kKernel) == cudaSuccess ? attributes.ptxVersion : 0;
  });
}

}  // namespace flashattn::cuda
