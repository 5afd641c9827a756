// flashattn — public attention API: forward, backward and the question "would this run?".
//
// Semantics (normative: ../../DESIGN.md §1). Per sequence, with offset = Sk - Sq, for query row i
// and key j (0-based):
//   s = scale * dot(q_i, k_j)              scale defaults to 1/sqrt(D)
//   s = softcap * tanh(s / softcap)        when softcap > 0
//   s -= slope_h * |i + offset - j|        when ALiBi slopes are given
//   key j is kept iff i + offset - window_left <= j <= i + offset + window_right
//                                          (-1 = unbounded; causal is exactly window_right = 0)
//   lse_i = log(sum_j exp(s_ij)),  out_i = sum_j exp(s_ij - lse_i) * v_j
// A row with no key kept gets out = 0 and lse = -inf (and zero gradients).
// Query head h reads kv head h / (H / Hk) (GQA/MQA).
//
// Layouts (strides in elements, last dimension contiguous, all other strides free):
//   dense:  q (B, Sq, H, D), k (B, Sk, Hk, D), v (B, Sk, Hk, Dv), out (B, Sq, H, Dv), lse (B, H, Sq)
//   varlen: q (total_q, H, D), k (total_k, Hk, D), v (total_k, Hk, Dv), out (total_q, H, Dv),
//           lse (H, total_q), cu_seqlens_q / cu_seqlens_k int32 (B + 1), optional seqused_k int32 (B).
//           Rows past cu_seqlens_q[B] / cu_seqlens_k[B] belong to no sequence: they are never read or
//           written. The backward writes zero dk/dv rows for keys past seqused_k[b] of a sequence.
#pragma once

#include <cstddef>
#include <optional>

#include "flashattn/run_info.hpp"
#include "flashattn/status.hpp"
#include "flashattn/tensor.hpp"

namespace flashattn {

/// Where the tensors of a call live.
enum class DeviceKind { cpu, cuda };

/// A device: the CPU, or CUDA device `index`.
struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
};

/// Which CUDA kernel family to prefer. `automatic` takes the fastest built path for the device and
/// records a fallback when it cannot; `portable` forces the mma.sync (sm80) path, `hopper` the sm90 path
/// (an error, not a fallback, when that path cannot run).
enum class CudaPath { automatic, hopper, portable };

/// "auto", "hopper" or "portable" (the names the CLI and the Python binding take).
const char* to_string(CudaPath path);

/// Arguments shared by forward and backward: the inputs and the attention's mathematical options.
struct AttentionArgs {
  TensorView q;  ///< (B, Sq, H, D) or varlen (total_q, H, D); fp16, bf16 or fp32 (CPU only).
  TensorView k;  ///< (B, Sk, Hk, D) or varlen (total_k, Hk, D); same dtype as q.
  TensorView v;  ///< (B, Sk, Hk, Dv) or varlen (total_k, Hk, Dv); same dtype as q.

  /// Varlen mode when present: int32 (B + 1), non-decreasing, starting at 0, last <= total_q.
  TensorView cu_seqlens_q;
  /// Required with cu_seqlens_q: int32 (B + 1), non-decreasing, starting at 0, last <= total_k.
  TensorView cu_seqlens_k;
  /// Optional in varlen mode: int32 (B); sequence b uses only its first seqused_k[b] keys
  /// (0 <= seqused_k[b] <= cu_seqlens_k[b+1] - cu_seqlens_k[b]).
  TensorView seqused_k;
  /// Longest query / key sequence in varlen mode. 0 = compute from cu_seqlens (host memory only).
  int max_seqlen_q = 0;
  int max_seqlen_k = 0;

  /// Multiplier of q·k; defaults to 1/sqrt(D). Must be finite.
  std::optional<float> softmax_scale;
  /// Bottom-right aligned causal mask: exactly window_right = 0.
  bool causal = false;
  /// Sliding window: keys up to `window_left` before and `window_right` after the diagonal
  /// (i + Sk - Sq). -1 = unbounded on that side. With causal, window_right must be -1 or 0.
  int window_left = -1;
  int window_right = -1;
  /// Soft capping of scores: s = softcap * tanh(s / softcap); 0 = off. Must be >= 0 and finite.
  float softcap = 0.0f;
  /// Optional ALiBi slopes, fp32, shape (H) or (B, H).
  TensorView alibi_slopes;

  /// Where the tensors live.
  Device device;
  /// CUDA path preference (ignored on the CPU).
  CudaPath cuda_path = CudaPath::automatic;
  /// cudaStream_t to launch on, as an opaque pointer (nullptr = the default stream).
  void* stream = nullptr;
  /// CPU threads to use; 0 = OpenMP's default.
  int num_threads = 0;
};

/// Arguments of forward().
struct ForwardArgs : AttentionArgs {
  TensorView out;  ///< Output (B, Sq, H, Dv) or varlen (total_q, H, Dv); same dtype as q. Written fully.
  TensorView lse;  ///< Optional fp32 (B, H, Sq) or varlen (H, total_q): log-sum-exp of each row.
  /// Optional device scratch of at least forward_workspace_size(*this) bytes, 16-byte aligned, for the
  /// Hopper kernel's cut tiles (a partial last round of unmasked tiles shared between CTAs: a CTA's fp32
  /// partial O and lse, and flags: O(SMs · Dv), 26 MB on 132 SMs at Dv = 256). Null: a call that cuts tiles
  /// allocates and frees it on its stream (cudaMallocAsync), whose pool may return the memory to the driver
  /// at every synchronisation and map it again on the next call. Unused on the CPU and by calls that cut no
  /// tiles.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

/// Arguments of backward(): gradients of out with respect to q, k and v.
struct BackwardArgs : AttentionArgs {
  TensorView out;   ///< The forward's output.
  TensorView dout;  ///< Gradient of the loss with respect to out; same shape and dtype as out.
  TensorView lse;   ///< The forward's lse (required): fp32 (B, H, Sq) or varlen (H, total_q).
  TensorView dq;    ///< Output: same shape and dtype as q. Written fully.
  TensorView dk;    ///< Output: same shape and dtype as k (summed over the query heads of a kv head).
  TensorView dv;    ///< Output: same shape and dtype as v (summed likewise).
  /// Bitwise-identical gradients across reruns. The CPU backend is deterministic either way.
  bool deterministic = false;
  /// Optional device scratch of at least backward_workspace_size(*this) bytes, 16-byte aligned, for the
  /// CUDA kernels (lse, D = rowsum(dO ∘ O) and the fp32 dQ accumulator: O(S), about 4 * (D + 2) bytes per
  /// query token and head). Null: the call allocates and frees it on its stream (cudaMallocAsync), whose
  /// pool may return the memory to the driver at every synchronisation and map it again on the next call.
  /// Unused on the CPU.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

/// Computes attention. On error nothing is launched and no output byte is written; `info`, when given,
/// is filled on success.
Status forward(const ForwardArgs& args, RunInfo* info = nullptr);

/// Computes dq, dk, dv. Same error contract as forward().
Status backward(const BackwardArgs& args, RunInfo* info = nullptr);

/// Bytes of `workspace` forward(args) may need on its device: enough for any kernel the call may take, a
/// function of the call's shapes, options and the device's SM count; 0 for a CPU call, when args are invalid
/// (the call then reports why) or when no kernel of the call cuts tiles.
std::size_t forward_workspace_size(const ForwardArgs& args);

/// Bytes of `workspace` backward(args) needs on its device: a function of the call's shapes and options.
/// 0 for a CPU call or when args are invalid (the call then reports why).
std::size_t backward_workspace_size(const BackwardArgs& args);

/// Whether forward(args) would run, and if not why: the same validation and kernel selection that
/// forward() performs, without touching any data behind the pointers except host-resident index
/// tensors (cu_seqlens, seqused_k) that validation reads.
Status is_supported(const ForwardArgs& args);

/// Whether backward(args) would run; see is_supported(const ForwardArgs&).
Status is_supported(const BackwardArgs& args);

}  // namespace flashattn
