// flashattn testing — raw device memory behind DeviceTensors: allocation and blocking copies on a CUDA
// device. device_memory_cuda.cpp implements it in CUDA builds; device_memory_host_only.cpp otherwise
// (where every call reports that there is no CUDA).
#pragma once

#include <cstddef>

#include "flashattn/attention.hpp"

namespace flashattn::testing::device_memory {

/// Whether this build can place tensors on `device` (always true for the CPU).
Status supported(Device device);

/// `bytes` of device memory (null for 0 bytes); release() frees it.
Status allocate(Device device, std::size_t bytes, void** pointer);
void release(Device device, void* pointer);

/// Blocking copies; they complete after all work queued on the device's default stream.
Status copy_to_device(Device device, void* device_pointer, const void* host_pointer, std::size_t bytes);
Status copy_to_host(Device device, void* host_pointer, const void* device_pointer, std::size_t bytes);

}  // namespace flashattn::testing::device_memory
