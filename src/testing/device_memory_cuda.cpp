// flashattn testing — device_memory.hpp over the CUDA runtime (compiled in CUDA builds only).
#if defined(FLASHATTN_WITH_CUDA)

#include <cuda_runtime_api.h>

#include <string>

#include "testing/device_memory.hpp"

namespace flashattn::testing::device_memory {
namespace {

Status cuda_status(const char* what, cudaError_t error) {
  if (error == cudaSuccess) return Status::success();
  return {StatusCode::internal, std::string(what) + ": " + cudaGetErrorString(error)};
}

}  // namespace

Status supported(Device device) {
  if (device.kind == DeviceKind::cpu) return Status::success();
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device.index < 0 || device.index >= count) {
    cudaGetLastError();
    return {StatusCode::unsupported,
            "device: CUDA device " + std::to_string(device.index) + " is not visible"};
  }
  return Status::success();
}

Status allocate(Device device, std::size_t bytes, void** pointer) {
  *pointer = nullptr;
  if (bytes == 0) return Status::success();
  Status status = cuda_status("cudaSetDevice", cudaSetDevice(device.index));
  if (!status.ok()) return status;
  return cuda_status("cudaMalloc", cudaMalloc(pointer, bytes));
}

void release(Device device, void* pointer) {
  if (pointer == nullptr) return;
  cudaSetDevice(device.index);
  cudaFree(pointer);
}

Status copy_to_device(Device device, void* device_pointer, const void* host_pointer, std::size_t bytes) {
  if (bytes == 0) return Status::success();
  Status status = cuda_status("cudaSetDevice", cudaSetDevice(device.index));
  if (!status.ok()) return status;
  return cuda_status("cudaMemcpy (to device)",
                     cudaMemcpy(device_pointer, host_pointer, bytes, cudaMemcpyHostToDevice));
}

Status copy_to_host(Device device, void* host_pointer, const void* device_pointer, std::size_t bytes) {
  if (bytes == 0) return Status::success();
  Status status = cuda_status("cudaSetDevice", cudaSetDevice(device.index));
  if (!status.ok()) return status;
  return cuda_status("cudaMemcpy (to host)",
                     cudaMemcpy(host_pointer, device_pointer, bytes, cudaMemcpyDeviceToHost));
}

}  // namespace flashattn::testing::device_memory

#endif
