// flashattn testing — device_memory.hpp in a build without CUDA: only the CPU exists.
#if !defined(FLASHATTN_WITH_CUDA)

#include "testing/device_memory.hpp"

namespace flashattn::testing::device_memory {
namespace {

Status no_cuda() {
  return {StatusCode::unsupported, "device: this build of the testing layer has no CUDA (DeviceKind::cuda)"};
}

}  // namespace

Status supported(Device device) { return device.kind == DeviceKind::cpu ? Status::success() : no_cuda(); }

Status allocate(Device, std::size_t, void** pointer) {
  *pointer = nullptr;
  return no_cuda();
}

void release(Device, void*) {}

Status copy_to_device(Device, void*, const void*, std::size_t) { return no_cuda(); }

Status copy_to_host(Device, void*, const void*, std::size_t) { return no_cuda(); }

}  // namespace flashattn::testing::device_memory

#endif
