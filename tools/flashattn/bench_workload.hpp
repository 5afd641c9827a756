// flashattn CLI — the tensors of one benchmark point, allocated once and shared by every backend so they
// all see the same inputs. Inputs are random normals (never zeros) rounded to the dtype; outputs are
// allocated (and touched) before any timed or memory-probed run.
#pragma once

#include "bench_point.hpp"
#include "flashattn/attention.hpp"
#include "testing/host_tensor.hpp"

namespace flashattn::cli {

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

 private:
  BenchPoint point_;
  testing::HostTensor q_, k_, v_, out_, lse_, dout_, dq_, dk_, dv_;
};

}  // namespace flashattn::cli
