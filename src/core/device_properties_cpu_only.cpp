// flashattn — device discovery in a CPU-only build: there are no CUDA devices.
#if !defined(FLASHATTN_WITH_CUDA)

#include "flashattn/device.hpp"

namespace flashattn {

int cuda_device_count() { return 0; }

std::optional<CudaDeviceProperties> cuda_device_properties(int) { return std::nullopt; }

}  // namespace flashattn

#endif
