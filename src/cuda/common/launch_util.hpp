// flashattn — host helpers shared by the CUDA launchers: CUDA errors as Status, and a guard that makes the
// call's device current for the duration of a launch.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

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

}  // namespace flashattn::cuda
