// flashattn — host helpers shared by the CUDA launchers: CUDA errors as Status, a guard that makes the
// call's device current for the duration of a launch, which PTX architecture a kernel runs from, and how
// many thread-block clusters of a kernel a device holds at once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
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

/// Largest cluster size any launcher asks for: 8 is portable, 16 needs the kernel's non-portable opt-in
/// (H100/H200 schedule it).
inline constexpr int kMaxClusterSize = 16;

/// Clusters of `cluster_size` CTAs of `kKernel` (`threads` threads and `smem_bytes` of dynamic shared memory
/// each) that `device` can have resident at once: a cluster only starts when all its CTAs fit one GPC, so
/// a grid of more clusters than this runs in more waves than its CTA count suggests. Asked once per kernel,
/// device and cluster size (1 < cluster_size <= kMaxClusterSize; the launch configuration must not change
/// between calls) and cached; 0 when the runtime cannot say or the size is out of range. Sets the kernel's
/// shared-memory and, above 8, non-portable cluster size attributes, which the launch needs too.
template <auto* kKernel>
int max_active_clusters(int device, int cluster_size, int threads, int smem_bytes) {
  static core::PerDeviceCache cache[kMaxClusterSize + 1];
  if (cluster_size < 2 || cluster_size > kMaxClusterSize) return 0;
  return cache[cluster_size].get(device, [&] {
    const void* kernel = reinterpret_cast<const void*>(kKernel);
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes) !=
        cudaSuccess) {
      return 0;
    }
    if (cluster_size > 8 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
      return 0;
    }
    cudaLaunchAttribute cluster_dims;
    cluster_dims.id = cudaLaunchAttributeClusterDimension;
    cluster_dims.val.clusterDim.x = static_cast<unsigned>(cluster_size);
    cluster_dims.val.clusterDim.y = 1;
    cluster_dims.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(cluster_size));
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
    config.attrs = &cluster_dims;
    config.numAttrs = 1;
    int clusters = 0;
    return cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess ? clusters : 0;
  });
}

}  // namespace flashattn::cuda
