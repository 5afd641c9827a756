// flashattn — CUDA device discovery through the runtime API (compiled only in CUDA builds).
#include <cuda_runtime_api.h>

#include "flashattn/device.hpp"

namespace flashattn {

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver / no device" error for later calls
    return 0;
  }
  return count;
}

std::optional<CudaDeviceProperties> cuda_device_properties(int index) {
  if (index < 0 || index >= cuda_device_count()) return std::nullopt;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) return std::nullopt;
  CudaDeviceProperties out;
  out.name = prop.name;
  out.sm_major = prop.major;
  out.sm_minor = prop.minor;
  out.multiprocessors = prop.multiProcessorCount;
  out.max_shared_memory_per_block = static_cast<int>(prop.sharedMemPerBlockOptin);
  out.l2_cache_bytes = prop.l2CacheSize;
  out.memory_bytes = prop.totalGlobalMem;
  cudaDriverGetVersion(&out.driver_version);
  cudaRuntimeGetVersion(&out.runtime_version);
  return out;
}

}  // namespace flashattn
