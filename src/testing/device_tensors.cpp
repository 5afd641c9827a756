#include "testing/device_tensors.hpp"

#include <cstddef>

#include "testing/device_memory.hpp"

namespace flashattn::testing {

DeviceTensors::~DeviceTensors() {
  for (const Binding& binding : bindings_) device_memory::release(device_, binding.device);
  for (void* pointer : scratch_) device_memory::release(device_, pointer);
}

void* DeviceTensors::scratch(std::size_t bytes) {
  void* pointer = nullptr;
  if (device_.kind == DeviceKind::cpu || bytes == 0) return pointer;
  if (device_memory::allocate(device_, bytes, &pointer).ok() && pointer != nullptr)
    scratch_.push_back(pointer);
  return pointer;
}

Status DeviceTensors::supported() const { return device_memory::supported(device_); }

// On the CPU the API reads and writes the host buffers in place. On a CUDA device each tensor gets a copy
// of its whole host allocation, so strides, padding and poison are the same on both sides.
TensorView DeviceTensors::bind(HostTensor& host) {
  if (device_.kind == DeviceKind::cpu || !host.present()) return host.view();
  for (const Binding& binding : bindings_) {
    if (binding.host == &host) return binding.view;
  }
  TensorView view = host.view();
  void* device = nullptr;
  if (device_memory::allocate(device_, host.size_bytes(), &device).ok() && device != nullptr) {
    device_memory::copy_to_device(device_, device, host.bytes(), host.size_bytes());
    const std::ptrdiff_t offset = static_cast<const std::byte*>(view.data) - host.bytes();
    view.data = static_cast<std::byte*>(device) + offset;
  } else {
    view.data = nullptr;  // an empty tensor, or a failed allocation that the call then reports
  }
  bindings_.push_back({&host, device, view});
  return view;
}

TensorView DeviceTensors::input(HostTensor& host) { return bind(host); }

TensorView DeviceTensors::output(HostTensor& host) {
  if (host.present()) outputs_.push_back(&host);
  return bind(host);
}

void DeviceTensors::upload_outputs() {
  if (device_.kind == DeviceKind::cpu) return;
  for (const Binding& binding : bindings_) {
    for (HostTensor* output : outputs_) {
      if (binding.host == output) {
        device_memory::copy_to_device(device_, binding.device, output->bytes(), output->size_bytes());
      }
    }
  }
}

void DeviceTensors::download_outputs() {
  if (device_.kind == DeviceKind::cpu) return;
  for (const Binding& binding : bindings_) {
    for (HostTensor* output : outputs_) {
      if (binding.host == output) {
        device_memory::copy_to_host(device_, output->bytes(), binding.device, output->size_bytes());
      }
    }
  }
}

}  // namespace flashattn::testing
