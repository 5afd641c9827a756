// flashattn testing — what a target can run, asked through the public API (is_supported), so a sweep never
// asks for a kernel that is not built and the answer matches what forward()/backward() would do.
#include <algorithm>
#include <initializer_list>
#include <utility>

#include "testing/sweeps.hpp"

namespace flashattn::testing {
namespace {

constexpr int kProbeHeadDims[] = {32, 64, 96, 128, 160, 192, 224, 256};
/// (D, Dv) pairs with D != Dv that a CUDA build may have a kernel for.
constexpr std::pair<int, int> kProbeHeadDimPairs[] = {{192, 128}, {128, 64}, {256, 128}};

/// An empty (B = 0) problem of the given dtype and head dims: validation and selection run in full, and no
/// memory is needed.
template <typename Args>
Args probe(Device device, CudaPath path, DType dtype, int head_dim, int head_dim_v) {
  Args args;
  args.q = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim});
  args.k = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim});
  args.v = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim_v});
  args.out = TensorView::contiguous(nullptr, dtype, {0, 1, 1, head_dim_v});
  args.device = device;
  args.cuda_path = path;
  return args;
}

Status probe_status(Device device, CudaPath path, Op op, DType dtype, int head_dim, int head_dim_v) {
  if (op == Op::forward) return is_supported(probe<ForwardArgs>(device, path, dtype, head_dim, head_dim_v));
  BackwardArgs args = probe<BackwardArgs>(device, path, dtype, head_dim, head_dim_v);
  args.dout = args.out;
  args.dq = args.q;
  args.dk = args.k;
  args.dv = args.v;
  args.lse = TensorView::contiguous(nullptr, DType::fp32, {0, 1, 1});
  return is_supported(args);
}

}  // namespace

Capabilities capabilities(Device device, CudaPath path, Op op) {
  if (device.kind == DeviceKind::cpu) return cpu_capabilities();
  Capabilities caps;
  for (DType dtype : {DType::fp16, DType::bf16}) {
    bool any = false;
    for (int head_dim : kProbeHeadDims) {
      if (!probe_status(device, path, op, dtype, head_dim, head_dim).ok()) continue;
      any = true;
      if (std::find(caps.head_dims.begin(), caps.head_dims.end(), head_dim) == caps.head_dims.end()) {
        caps.head_dims.push_back(head_dim);
      }
    }
    if (any) caps.dtypes.push_back(dtype);
  }
  // A pair is swept (one case per pair, in the sweep's dtype rotation) when every dtype swept runs it.
  for (const auto& pair : kProbeHeadDimPairs) {
    bool runs = !caps.dtypes.empty();
    for (DType dtype : caps.dtypes) {
      runs = runs && probe_status(device, path, op, dtype, pair.first, pair.second).ok();
    }
    if (runs) caps.head_dim_pairs.push_back(pair);
  }
  return caps;
}

}  // namespace flashattn::testing
