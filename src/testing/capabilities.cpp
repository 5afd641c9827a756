// flashattn testing — what a target can run, asked through the public API (is_supported), so a sweep never
// asks for a kernel that is not built and the answer matches what forward()/backward() would do.
#include <initializer_list>

#include "testing/sweeps.hpp"

namespace flashattn::testing {
namespace {

constexpr int kProbeHeadDims[] = {32, 64, 96, 128, 160, 192, 224, 256};

/// An empty (B = 0) problem of the given dtype and head dim: validation and selection run in full, and no
/// memory is needed.
template <typename Args>
Args probe(Device device, CudaPath path, DType dtype, int head_dim) {
  Args args;
  args.q = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim});
  args.k = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim});
  args.v = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim});
  args.out = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim});
  args.device = device;
  args.cuda_path = path;
  return args;
}

BackwardArgs backward_probe(Device device, CudaPath path, DType dtype, int head_dim) {
  BackwardArgs args = probe<BackwardArgs>(device, path, dtype, head_dim);
  args.dout = args.dq = args.dk = args.dv = args.out;
  args.lse = TensorView::contiguous(nullptr, DType::fp32, {0, 1, 1});
  return args;
}

}  // namespace

Capabilities capabilities(Device device, CudaPath path, Op op) {
  if (device.kind == DeviceKind::cpu) return cpu_capabilities();
  Capabilities caps;
  for (DType dtype : {DType::fp16, DType::bf16}) {
    bool any = false;
    for (int head_dim : kProbeHeadDims) {
      const Status status = op == Op::forward
                                ? is_supported(probe<ForwardArgs>(device, path, dtype, head_dim))
                                : is_supported(backward_probe(device, path, dtype, head_dim));
      if (!status.ok()) continue;
      any = true;
      bool known = false;
      for (int d : caps.head_dims) known = known || d == head_dim;
      if (!known) caps.head_dims.push_back(head_dim);
    }
    if (any) caps.dtypes.push_back(dtype);
  }
  return caps;
}

}  // namespace flashattn::testing
