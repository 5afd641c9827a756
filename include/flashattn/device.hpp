// flashattn — what CUDA devices this process can see (answers without a GPU or a CUDA build, too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace flashattn {

/// Properties of one CUDA device.
struct CudaDeviceProperties {
  std::string name;  ///< e.g. "NVIDIA H200".
  int sm_major = 0;  ///< Compute capability, e.g. 9 for sm_90.
  int sm_minor = 0;
  int multiprocessors = 0;              ///< SM count.
  int max_shared_memory_per_block = 0;  ///< Bytes one block may opt in to (sharedMemPerBlockOptin).
  int l2_cache_bytes = 0;               ///< L2 cache size (l2CacheSize).
  std::uint64_t memory_bytes = 0;
  int driver_version = 0;   ///< cudaDriverGetVersion(), e.g. 13000.
  int runtime_version = 0;  ///< cudaRuntimeGetVersion().
};

/// Number of CUDA devices visible; 0 without a GPU, without a driver, or in a CPU-only build.
int cuda_device_count();

/// Properties of device `index`, or nothing when it does not exist.
std::optional<CudaDeviceProperties> cuda_device_properties(int index);

}  // namespace flashattn
