// flashattn — PyTorch binding: forward, backward and the KV-cache call as torch.library ops on the current
// stream. Thin by design: it converts tensors to TensorViews, allocates the outputs, and reports the
// library's Status as a Python error. No kernel logic and no synchronisation here; autograd is wired in
// Python (flashattn/_api.py) over these ops.
#include <torch/extension.h>
#include <torch/library.h>

#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include <c10/core/DeviceGuard.h>

#if defined(FLASHATTN_TORCH_CUDA)
#include <c10/cuda/CUDAStream.h>
#endif

#include "flashattn/flashattn.hpp"

namespace {

// The RunInfo of the last call in this process. Process-wide, not per thread: autograd runs the backward
// on its own device thread, and a user asking what ran after loss.backward() means that call.
std::mutex g_last_run_mutex;
flashattn::RunInfo g_last_run;

void record_run(const flashattn::RunInfo& info) {
  const std::lock_guard<std::mutex> lock(g_last_run_mutex);
  g_last_run = info;
}

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

/// The device, stream and thread count of a call on q's device.
void place(flashattn::AttentionArgs& args, const at::Tensor& q) {
#if defined(FLASHATTN_TORCH_CUDA)
  if (q.is_cuda()) {
    args.device = {flashattn::DeviceKind::cuda, q.device().index()};
    args.stream = c10::cuda::getCurrentCUDAStream(q.device().index()).stream();
  }
#else
  TORCH_CHECK(!q.is_cuda(), "flashattn was built without its CUDA backend");
#endif
  if (q.is_cpu()) args.num_threads = at::get_num_threads();
}

/// The mathematical options every op shares.
void set_options(flashattn::AttentionArgs& args, std::optional<double> softmax_scale, bool causal,
                 int64_t window_left, int64_t window_right, double softcap,
                 const std::optional<at::Tensor>& alibi_slopes) {
  if (softmax_scale) args.softmax_scale = static_cast<float>(*softmax_scale);
  args.causal = causal;
  args.window_left = static_cast<int>(window_left);
  args.window_right = static_cast<int>(window_right);
  args.softcap = static_cast<float>(softcap);
  if (alibi_slopes) args.alibi_slopes = view_of(*alibi_slopes, "alibi_slopes");
}

/// Gives `args` a workspace of `bytes` (none when 0) from PyTorch's caching allocator on q's device, which
/// the returned tensor holds: no allocation on the CUDA stream per call (whose pool would return the memory
/// to the driver at each synchronisation and map it again), and under CUDA-graph capture memory of the
/// graph's pool, so a captured call holds no allocation nodes.
template <class Args>
at::Tensor give_workspace(Args& args, std::size_t bytes, const at::Tensor& q) {
  if (bytes == 0) return {};
  at::Tensor workspace = at::empty({static_cast<int64_t>(bytes)}, q.options().dtype(at::kByte));
  args.workspace = workspace.data_ptr();
  args.workspace_bytes = bytes;
  return workspace;
}

/// Runs the forward set up in `args` (options, varlen group) on q, k, v into out and lse.
std::tuple<at::Tensor, at::Tensor> run_forward(flashattn::ForwardArgs& args, const at::Tensor& q,
                                               const at::Tensor& k, const at::Tensor& v, at::Tensor out,
                                               at::Tensor lse, c10::string_view path) {
  TORCH_CHECK_VALUE(k.device() == q.device() && v.device() == q.device(), "k, v: must be on q's device");
  args.q = view_of(q, "q");
  args.k = view_of(k, "k");
  args.v = view_of(v, "v");
  args.out = view_of(out, "out");
  args.lse = view_of(lse, "lse");
  args.cuda_path = to_path(std::string_view(path.data(), path.size()));
  const c10::OptionalDeviceGuard guard(q.device());
  place(args, q);
  const at::Tensor workspace = give_workspace(args, flashattn::forward_workspace_size(args), q);
  flashattn::RunInfo info;
  check(flashattn::forward(args, &info));
  record_run(info);
  return {out, lse};
}

/// Runs the backward set up in `args` (options, varlen group): dq, dk, dv shaped as q, k, v.
std::tuple<at::Tensor, at::Tensor, at::Tensor> run_backward(flashattn::BackwardArgs& args,
                                                            const at::Tensor& dout, const at::Tensor& q,
                                                            const at::Tensor& k, const at::Tensor& v,
                                                            const at::Tensor& out, const at::Tensor& lse,
                                                            bool deterministic, c10::string_view path) {
  for (const at::Tensor* t : {&k, &v, &out, &lse, &dout}) {
    TORCH_CHECK_VALUE(t->device() == q.device(), "k, v, out, lse, dout: must be on q's device");
  }
  at::Tensor dq = at::empty_like(q);
  at::Tensor dk = at::empty_like(k);
  at::Tensor dv = at::empty_like(v);
  args.q = view_of(q, "q");
  args.k = view_of(k, "k");
  args.v = view_of(v, "v");
  args.out = view_of(out, "out");
  args.lse = view_of(lse, "lse");
  args.dout = view_of(dout, "dout");
  args.dq = view_of(dq, "dq");
  args.dk = view_of(dk, "dk");
  args.dv = view_of(dv, "dv");
  args.deterministic = deterministic;
  args.cuda_path = to_path(std::string_view(path.data(), path.size()));
  const c10::OptionalDeviceGuard guard(q.device());
  place(args, q);
  const at::Tensor workspace = give_workspace(args, flashattn::backward_workspace_size(args), q);
  flashattn::RunInfo info;
  check(flashattn::backward(args, &info));
  record_run(info);
  return {dq, dk, dv};
}

std::tuple<at::Tensor, at::Tensor> fwd(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                       std::optional<double> softmax_scale, bool causal, int64_t window_left,
                                       int64_t window_right, double softcap,
                                       const std::optional<at::Tensor>& alibi_slopes, bool /*deterministic*/,
                                       c10::string_view path) {
  TORCH_CHECK_VALUE(q.dim() == 4, "q: expected (B, Sq, H, D), got ", q.dim(), " dimensions");
  flashattn::ForwardArgs args;
  set_options(args, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes);
  return run_forward(args, q, k, v, at::empty({q.size(0), q.size(1), q.size(2), v.size(-1)}, q.options()),
                     at::empty({q.size(0), q.size(2), q.size(1)}, q.options().dtype(at::kFloat)), path);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> bwd(const at::Tensor& dout, const at::Tensor& q,
                                                   const at::Tensor& k, const at::Tensor& v,
                                                   const at::Tensor& out, const at::Tensor& lse,
                                                   std::optional<double> softmax_scale, bool causal,
                                                   int64_t window_left, int64_t window_right, double softcap,
                                                   const std::optional<at::Tensor>& alibi_slopes,
                                                   bool deterministic, c10::string_view path) {
  flashattn::BackwardArgs args;
  set_options(args, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes);
  return run_backward(args, dout, q, k, v, out, lse, deterministic, path);
}

/// The varlen group of a call: cu_seqlens_q/k (B + 1), the longest lengths, optional seqused_k.
void set_varlen(flashattn::AttentionArgs& args, const at::Tensor& cu_seqlens_q,
                const at::Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
                const std::optional<at::Tensor>& seqused_k) {
  args.cu_seqlens_q = view_of(cu_seqlens_q, "cu_seqlens_q");
  args.cu_seqlens_k = view_of(cu_seqlens_k, "cu_seqlens_k");
  args.max_seqlen_q = static_cast<int>(max_seqlen_q);
  args.max_seqlen_k = static_cast<int>(max_seqlen_k);
  if (seqused_k) args.seqused_k = view_of(*seqused_k, "seqused_k");
}

std::tuple<at::Tensor, at::Tensor> fwd_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                              const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                                              int64_t max_seqlen_q, int64_t max_seqlen_k,
                                              const std::optional<at::Tensor>& seqused_k,
                                              std::optional<double> softmax_scale, bool causal,
                                              int64_t window_left, int64_t window_right, double softcap,
                                              const std::optional<at::Tensor>& alibi_slopes,
                                              bool /*deterministic*/, c10::string_view path) {
  TORCH_CHECK_VALUE(q.dim() == 3, "q: expected (total_q, H, D), got ", q.dim(), " dimensions");
  flashattn::ForwardArgs args;
  set_varlen(args, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k);
  set_options(args, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes);
  return run_forward(args, q, k, v, at::empty({q.size(0), q.size(1), v.size(-1)}, q.options()),
                     at::empty({q.size(1), q.size(0)}, q.options().dtype(at::kFloat)), path);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> bwd_varlen(
    const at::Tensor& dout, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const at::Tensor& out, const at::Tensor& lse, const at::Tensor& cu_seqlens_q,
    const at::Tensor& cu_seqlens_k, int64_t max_seqlen_q, int64_t max_seqlen_k,
    const std::optional<at::Tensor>& seqused_k, std::optional<double> softmax_scale, bool causal,
    int64_t window_left, int64_t window_right, double softcap, const std::optional<at::Tensor>& alibi_slopes,
    bool deterministic, c10::string_view path) {
  flashattn::BackwardArgs args;
  set_varlen(args, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k);
  set_options(args, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes);
  return run_backward(args, dout, q, k, v, out, lse, deterministic, path);
}

/// An optional tensor's view (absent when not given).
flashattn::TensorView optional_view(const std::optional<at::Tensor>& t, const char* name) {
  return t ? view_of(*t, name) : flashattn::TensorView{};
}

std::tuple<at::Tensor, at::Tensor> fwd_kvcache(
    const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
    const at::Tensor& cache_seqlens, const std::optional<at::Tensor>& k_new,
    const std::optional<at::Tensor>& v_new, const std::optional<at::Tensor>& rotary_cos,
    const std::optional<at::Tensor>& rotary_sin, const std::optional<at::Tensor>& cache_batch_idx,
    const std::optional<at::Tensor>& page_table, std::optional<double> softmax_scale, bool causal,
    int64_t window_left, int64_t window_right, double softcap, bool rotary_interleaved,
    const std::optional<at::Tensor>& alibi_slopes, int64_t num_splits) {
  TORCH_CHECK_VALUE(q.dim() == 4, "q: expected (B, Sq, H, D), got ", q.dim(), " dimensions");
  for (const at::Tensor* t : {&k_cache, &v_cache, &cache_seqlens}) {
    TORCH_CHECK_VALUE(t->device() == q.device(), "k_cache, v_cache, cache_seqlens: must be on q's device");
  }
  at::Tensor out = at::empty({q.size(0), q.size(1), q.size(2), v_cache.size(-1)}, q.options());
  at::Tensor lse = at::empty({q.size(0), q.size(2), q.size(1)}, q.options().dtype(at::kFloat));

  flashattn::KVCacheArgs args;
  args.q = view_of(q, "q");
  args.k = view_of(k_cache, "k_cache");
  args.v = view_of(v_cache, "v_cache");
  args.cache_seqlens = view_of(cache_seqlens, "cache_seqlens");
  args.k_new = optional_view(k_new, "k");
  args.v_new = optional_view(v_new, "v");
  args.rotary_cos = optional_view(rotary_cos, "rotary_cos");
  args.rotary_sin = optional_view(rotary_sin, "rotary_sin");
  args.cache_batch_idx = optional_view(cache_batch_idx, "cache_batch_idx");
  args.page_table = optional_view(page_table, "block_table");
  args.rotary_interleaved = rotary_interleaved;
  args.num_splits = static_cast<int>(num_splits);
  args.out = view_of(out, "out");
  args.lse = view_of(lse, "lse");
  set_options(args, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes);
  const c10::OptionalDeviceGuard guard(q.device());
  place(args, q);
  const at::Tensor workspace = give_workspace(args, flashattn::kvcache_workspace_size(args), q);

  flashattn::RunInfo info;
  check(flashattn::forward_kvcache(args, &info));
  record_run(info);
  return {out, lse};
}

pybind11::dict last_run() {
  flashattn::RunInfo run;
  {
    const std::lock_guard<std::mutex> lock(g_last_run_mutex);
    run = g_last_run;
  }
  pybind11::dict d;
  d["backend"] = flashattn::to_string(run.backend);
  d["kernel"] = run.kernel;
  d["block_m"] = run.block_m;
  d["block_n"] = run.block_n;
  d["num_ctas"] = run.num_ctas;
  d["num_splits"] = run.num_splits;
  d["cluster_size"] = run.cluster_size;
  d["packed_heads"] = run.packed_heads;
  d["cut_tiles"] = run.cut_tiles;
  d["launched"] = run.launched;
  d["fell_back"] = run.fell_back;
  d["fallback_reason"] = run.fallback_reason;
  return d;
}

}  // namespace

// fwd's `deterministic` does not change the forward (always deterministic): autograd hands it to bwd.
TORCH_LIBRARY(flashattn, m) {
  m.def(
      "fwd(Tensor q, Tensor k, Tensor v, float? softmax_scale=None, bool causal=False, int window_left=-1, "
      "int window_right=-1, float softcap=0.0, Tensor? alibi_slopes=None, bool deterministic=False, "
      "str path='auto') -> (Tensor out, Tensor lse)");
  m.def(
      "bwd(Tensor dout, Tensor q, Tensor k, Tensor v, Tensor out, Tensor lse, float? softmax_scale=None, "
      "bool causal=False, int window_left=-1, int window_right=-1, float softcap=0.0, Tensor? "
      "alibi_slopes=None, "
      "bool deterministic=False, str path='auto') -> (Tensor dq, Tensor dk, Tensor dv)");
  m.def(
      "fwd_varlen(Tensor q, Tensor k, Tensor v, Tensor cu_seqlens_q, Tensor cu_seqlens_k, int max_seqlen_q, "
      "int max_seqlen_k, Tensor? seqused_k=None, float? softmax_scale=None, bool causal=False, "
      "int window_left=-1, int window_right=-1, float softcap=0.0, Tensor? alibi_slopes=None, "
      "bool deterministic=False, str path='auto') -> (Tensor out, Tensor lse)");
  m.def(
      "bwd_varlen(Tensor dout, Tensor q, Tensor k, Tensor v, Tensor out, Tensor lse, Tensor cu_seqlens_q, "
      "Tensor cu_seqlens_k, int max_seqlen_q, int max_seqlen_k, Tensor? seqused_k=None, "
      "float? softmax_scale=None, bool causal=False, int window_left=-1, int window_right=-1, "
      "float softcap=0.0, Tensor? alibi_slopes=None, bool deterministic=False, str path='auto') -> "
      "(Tensor dq, Tensor dk, Tensor dv)");
  // The caches are written in place (the append): annotated as mutated, so functionalisation and
  // torch.compile see the write.
  m.def(
      "fwd_kvcache(Tensor q, Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor cache_seqlens, Tensor? k=None, "
      "Tensor? v=None, Tensor? rotary_cos=None, Tensor? rotary_sin=None, Tensor? cache_batch_idx=None, "
      "Tensor? block_table=None, float? softmax_scale=None, bool causal=False, int window_left=-1, "
      "int window_right=-1, float softcap=0.0, bool rotary_interleaved=True, Tensor? alibi_slopes=None, "
      "int num_splits=0) -> (Tensor out, Tensor lse)");
}

TORCH_LIBRARY_IMPL(flashattn, CPU, m) {
  m.impl("fwd", &fwd);
  m.impl("bwd", &bwd);
  m.impl("fwd_varlen", &fwd_varlen);
  m.impl("bwd_varlen", &bwd_varlen);
  m.impl("fwd_kvcache", &fwd_kvcache);
}

#if defined(FLASHATTN_TORCH_CUDA)
TORCH_LIBRARY_IMPL(flashattn, CUDA, m) {
  m.impl("fwd", &fwd);
  m.impl("bwd", &bwd);
  m.impl("fwd_varlen", &fwd_varlen);
  m.impl("bwd_varlen", &bwd_varlen);
  m.impl("fwd_kvcache", &fwd_kvcache);
}
#endif

PYBIND11_MODULE(_C, m) {
  m.doc() = "flashattn's compiled ops (registered under torch.ops.flashattn)";
  m.def("last_run", &last_run, "RunInfo of the last call in this process, as a dict");
  m.def("fallback_count", &flashattn::fallback_count, "fallbacks taken by this process so far");
}
