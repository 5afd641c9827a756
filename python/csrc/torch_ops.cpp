// flashattn — PyTorch binding: the forward as a torch.library op on the current stream. Thin by design:
// it converts tensors to TensorViews, allocates the outputs, and reports the library's Status as a Python
// error. No kernel logic and no synchronisation here.
#include <torch/extension.h>
#include <torch/library.h>

#include <optional>
#include <string>
#include <tuple>

#if defined(FLASHATTN_TORCH_CUDA)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "flashattn/flashattn.hpp"

namespace {

thread_local flashattn::RunInfo g_last_run;

flashattn::DType to_dtype(const at::Tensor& t, const char* name) {
  switch (t.scalar_type()) {
    case at::kHalf:
      return flashattn::DType::fp16;
    case at::kBFloat16:
      return flashattn::DType::bf16;
    case at::kFloat:
      return flashattn::DType::fp32;
    case at::kInt:
      return flashattn::DType::i32;
    default:
      TORCH_CHECK_VALUE(false, name, ": unsupported dtype ", t.scalar_type());
  }
  return flashattn::DType::fp32;
}

flashattn::TensorView view_of(const at::Tensor& t, const char* name) {
  TORCH_CHECK_VALUE(t.dim() <= flashattn::kMaxRank, name, ": rank ", t.dim(), " is above ",
                    flashattn::kMaxRank);
  flashattn::TensorView view;
  view.data = t.data_ptr();
  view.dtype = to_dtype(t, name);
  view.rank = static_cast<int>(t.dim());
  for (int d = 0; d < view.rank; ++d) {
    view.shape[d] = t.size(d);
    view.stride[d] = t.stride(d);
  }
  return view;
}

flashattn::CudaPath to_path(std::string_view path) {
  if (path == "auto") return flashattn::CudaPath::automatic;
  if (path == "hopper") return flashattn::CudaPath::hopper;
  if (path == "portable") return flashattn::CudaPath::portable;
  TORCH_CHECK_VALUE(false, "path: must be 'auto', 'hopper' or 'portable', got '", path, "'");
  return flashattn::CudaPath::automatic;
}

void check(const flashattn::Status& status) {
  if (status.ok()) return;
  if (status.code() == flashattn::StatusCode::invalid_argument) TORCH_CHECK_VALUE(false, status.message());
  TORCH_CHECK(false, "flashattn: ", status.to_string());
}

std::tuple<at::Tensor, at::Tensor> fwd(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                       std::optional<double> softmax_scale, bool causal, int64_t window_left,
                                       int64_t window_right, double softcap,
                                       const std::optional<at::Tensor>& alibi_slopes, c10::string_view path) {
  TORCH_CHECK_VALUE(q.dim() == 4, "q: expected (B, Sq, H, D), got ", q.dim(), " dimensions");
  TORCH_CHECK_VALUE(k.device() == q.device() && v.device() == q.device(), "k, v: must be on q's device");
  at::Tensor out = at::empty({q.size(0), q.size(1), q.size(2), v.size(-1)}, q.options());
  at::Tensor lse = at::empty({q.size(0), q.size(2), q.size(1)}, q.options().dtype(at::kFloat));

  flashattn::ForwardArgs args;
  args.q = view_of(q, "q");
  args.k = view_of(k, "k");
  args.v = view_of(v, "v");
  args.out = view_of(out, "out");
  args.lse = view_of(lse, "lse");
  if (softmax_scale) args.softmax_scale = static_cast<float>(*softmax_scale);
  args.causal = causal;
  args.window_left = static_cast<int>(window_left);
  args.window_right = static_cast<int>(window_right);
  args.softcap = static_cast<float>(softcap);
  if (alibi_slopes) args.alibi_slopes = view_of(*alibi_slopes, "alibi_slopes");
  args.cuda_path = to_path(std::string_view(path.data(), path.size()));
#if defined(FLASHATTN_TORCH_CUDA)
  std::optional<c10::cuda::CUDAGuard> guard;
  if (q.is_cuda()) {
    guard.emplace(q.device());
    args.device = {flashattn::DeviceKind::cuda, q.device().index()};
    args.stream = c10::cuda::getCurrentCUDAStream(q.device().index()).stream();
  }
#else
  TORCH_CHECK(!q.is_cuda(), "flashattn was built without its CUDA backend");
#endif
  if (q.is_cpu()) args.num_threads = at::get_num_threads();

  flashattn::RunInfo info;
  check(flashattn::forward(args, &info));
  g_last_run = info;
  return {out, lse};
}

pybind11::dict last_run() {
  pybind11::dict d;
  d["backend"] = flashattn::to_string(g_last_run.backend);
  d["kernel"] = g_last_run.kernel;
  d["block_m"] = g_last_run.block_m;
  d["block_n"] = g_last_run.block_n;
  d["num_ctas"] = g_last_run.num_ctas;
  d["num_splits"] = g_last_run.num_splits;
  d["launched"] = g_last_run.launched;
  d["fell_back"] = g_last_run.fell_back;
  d["fallback_reason"] = g_last_run.fallback_reason;
  return d;
}

}  // namespace

TORCH_LIBRARY(flashattn, m) {
  m.def(
      "fwd(Tensor q, Tensor k, Tensor v, float? softmax_scale=None, bool causal=False, int window_left=-1, "
      "int window_right=-1, float softcap=0.0, Tensor? alibi_slopes=None, str path='auto') -> (Tensor out, "
      "Tensor lse)");
}

TORCH_LIBRARY_IMPL(flashattn, CPU, m) { m.impl("fwd", &fwd); }

#if defined(FLASHATTN_TORCH_CUDA)
TORCH_LIBRARY_IMPL(flashattn, CUDA, m) { m.impl("fwd", &fwd); }
#endif

PYBIND11_MODULE(_C, m) {
  m.doc() = "flashattn's compiled ops (registered under torch.ops.flashattn)";
  m.def("last_run", &last_run, "RunInfo of the last call on this thread, as a dict");
  m.def("fallback_count", &flashattn::fallback_count, "fallbacks taken by this process so far");
}
