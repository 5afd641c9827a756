// flashattn CLI — the tensors of one benchmark point, allocated once and shared by every backend so they
// all see the same inputs. Inputs are random normals (never zeros) rounded to the dtype; outputs are
// allocated (and touched) before any timed or memory-probed run. A CUDA backend gets one device copy of
// them, made on first request through the testing layer's DeviceTensors and kept for every later call.
#pragma once

#include <cstdint>
#include <memory>

#include "bench_point.hpp"
#include "flashattn/attention.hpp"
#include "testing/device_tensors.hpp"
#include "testing/host_tensor.hpp"

namespace flashattn::cli {

/// The device the cuda backend runs on: the first one `info` lists.
inline constexpr Device kCudaDevice{DeviceKind::cuda, 0};

class Workload {
 public:
  /// Allocates and fills the point's tensors (dout as well for a backward point).
  Workload(const BenchPoint& point, std::uint64_t seed);

  const BenchPoint& point() const { return point_; }

  /// Arguments of a forward call on the CPU writing out and lse.
  ForwardArgs forward_args(int num_threads);

  /// Arguments of a backward call on the CPU. out and lse must hold a forward's result
  /// (prepare_backward()).
  BackwardArgs backward_args(int num_threads);

  /// Fills out and lse with the flash CPU backend's forward, the saved activations every backend's
  /// backward then starts from.
  Status prepare_backward(int num_threads);

  /// Copies the tensors to kCudaDevice, once (later calls return at once). For a backward point call it
  /// after prepare_backward(), so that out and lse travel with the forward's result.
  Status copy_to_cuda();

  /// Arguments of a call on the CUDA copies (copy_to_cuda() first), launched on `stream` (a cudaStream_t,
  /// nullptr for the default stream).
  ForwardArgs cuda_forward_args(void* stream) const;
  BackwardArgs cuda_backward_args(void* stream) const;

  /// Bytes of the op's outputs (out and lse, or dq, dk and dv): the memory a call writes, which the
  /// caller provides.
  std::int64_t output_bytes() const;

 private:
  /// Views of the point's tensors, wherever they live.
  struct Views {
    TensorView q, k, v, out, lse, dout, dq, dk, dv;
  };
  ForwardArgs make_forward_args(const Views& views, Device device) const;
  BackwardArgs make_backward_args(const Views& views, Device device) const;
  Views host_views();

  BenchPoint point_;
  testing::HostTensor q_, k_, v_, out_, lse_, dout_, dq_, dk_, dv_;
  std::unique_ptr<testing::DeviceTensors> cuda_tensors_;  ///< Null until copy_to_cuda().
  Views cuda_views_;
};

}  // namespace flashattn::cli
