// flashattn testing — the one place where a case's host tensors meet the device the call runs on.
// On the CPU the API reads and writes the host buffers in place. A CUDA target is added here, and only
// here: allocate a device buffer per bound tensor, copy it in at bind time (outputs too, so the poison
// travels), and copy outputs back in download_outputs().
#pragma once

#include <cstddef>
#include <vector>

#include "flashattn/attention.hpp"
#include "testing/host_tensor.hpp"

namespace flashattn::testing {

class DeviceTensors {
 public:
  explicit DeviceTensors(Device device) : device_(device) {}
  ~DeviceTensors();
  DeviceTensors(const DeviceTensors&) = delete;
  DeviceTensors& operator=(const DeviceTensors&) = delete;

  Device device() const { return device_; }

  /// Whether this build of the testing layer can place tensors on the device.
  Status supported() const;

  /// A view of `host`'s contents on the device (absent when `host` is). Binding a tensor again gives the
  /// same device view, so a forward's outputs can feed the backward. Outputs are downloaded later.
  TensorView input(HostTensor& host);
  TensorView output(HostTensor& host);

  /// `bytes` of uninitialised device memory (null for 0 bytes or on the CPU), freed with the tensors.
  void* scratch(std::size_t bytes);

  /// Copies the host contents of every output to the device again (after the host poisoned them anew).
  void upload_outputs();
  /// Copies every output back into its host tensor.
  void download_outputs();

 private:
  /// A host tensor and its device copy (the whole host allocation, padding and poison included).
  struct Binding {
    HostTensor* host;
    void* device;
    TensorView view;
  };
  TensorView bind(HostTensor& host);

  Device device_;
  std::vector<HostTensor*> outputs_;
  std::vector<Binding> bindings_;  ///< CUDA only.
  std::vector<void*> scratch_;     ///< CUDA only.
};

}  // namespace flashattn::testing
