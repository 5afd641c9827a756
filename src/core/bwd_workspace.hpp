// flashattn — the device workspace of a CUDA backward, O(S) in the sequence length: per (query token, head)
// the lse in log2 units and D = rowsum(dO ∘ O), and the fp32 dQ accumulator. The caller may pass it
// (backward_workspace_size() gives the size); else the library allocates it on the call's stream.
// Plain layout arithmetic, shared by the host (sizes) and the kernels (indices).
//
// Then the counters, zeroed before the main kernel: the tile counter from which the persistent Hopper
// kernel's CTAs take their next tile, and in deterministic runs one int per (batch, head, query block): the
// dQ semaphore that orders the key blocks' additions to that block's accumulator.
//
// Tokens: dense sequence b row i is token b * max_seqlen_q + i; varlen it is cu_seqlens_q[b] + i. Either
// way every token is below batch * max_seqlen_q (a varlen sequence is at most max_seqlen_q long), so that
// is the size, known on the host without reading device-resident cu_seqlens.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"
#include "core/params.hpp"

namespace flashattn::core {

struct BwdWorkspace {
  /// The smallest query block of any backward kernel: the semaphores are counted per block of this many
  /// rows, so max_bytes() covers every kernel (a kernel's block_m must be a multiple of it).
  static constexpr int kMinBlockM = 32;

  float* lse_log2 = nullptr;    ///< (H, tokens): lse * log2(e); +inf where lse = -inf, so exp2(t - it) = 0.
  float* dsum = nullptr;        ///< (H, tokens): D_i = rowsum(dO_i ∘ O_i).
  float* dq_accum = nullptr;    ///< (tokens, H, D): sum over key blocks of dS · K, unscaled.
  int* tile_counter = nullptr;  ///< Tiles taken by the persistent kernel's CTAs beyond their first.
  /// Deterministic runs only (else null): (B, H, m_blocks) key blocks done adding into each query block.
  int* dq_semaphore = nullptr;
  std::int64_t tokens = 0;
  int m_blocks = 0;  ///< Query blocks of block_m rows per (batch, head).

  /// Host: bytes the workspace of `p` takes for a kernel of `block_m` query rows per block. Each part starts
  /// on a 256-byte boundary (16-byte vectors).
  static std::size_t bytes(const BackwardParams& p, int block_m) { return offsets(p, block_m).end; }
  /// Host: bytes enough for any kernel's workspace of `p` (what backward_workspace_size() reports).
  static std::size_t max_bytes(const BackwardParams& p) { return bytes(p, kMinBlockM); }

  /// Host: the parts of a workspace of bytes(p, block_m) bytes at `base`.
  static BwdWorkspace bind(const BackwardParams& p, int block_m, void* base) {
    const Offsets o = offsets(p, block_m);
    auto* bytes = static_cast<char*>(base);
    BwdWorkspace w;
    w.lse_log2 = reinterpret_cast<float*>(bytes + o.lse_log2);
    w.dsum = reinterpret_cast<float*>(bytes + o.dsum);
    w.dq_accum = reinterpret_cast<float*>(bytes + o.dq_accum);
    w.tile_counter = reinterpret_cast<int*>(bytes + o.tile_counter);
    w.dq_semaphore = p.deterministic ? reinterpret_cast<int*>(bytes + o.dq_semaphore) : nullptr;
    w.tokens = tokens_of(p);
    w.m_blocks = m_blocks_of(p, block_m);
    return w;
  }
  /// Host: bytes of the counters (zeroed before the main kernel), which start at tile_counter.
  static std::size_t counter_bytes(const BackwardParams& p, int block_m) {
    const Offsets o = offsets(p, block_m);
    return o.end - o.tile_counter;
  }

  FLASHATTN_HOST_DEVICE std::int64_t token(const BackwardParams& p, int b, int row) const {
    return (p.is_varlen() ? p.q_start(b) : std::int64_t{b} * p.max_seqlen_q) + row;
  }
  /// Index of (head, token) in lse_log2 and dsum.
  FLASHATTN_HOST_DEVICE std::int64_t stat_index(int head, std::int64_t token) const {
    return head * tokens + token;
  }
  /// Index of element 0 of (token, head) in dq_accum.
  FLASHATTN_HOST_DEVICE std::int64_t dq_index(const BackwardParams& p, std::int64_t token, int head) const {
    return (token * p.heads + head) * p.head_dim;
  }
  /// The semaphore of query block `m_block` of (batch, head).
  FLASHATTN_HOST_DEVICE int* semaphore(const BackwardParams& p, int batch, int head, int m_block) const {
    return dq_semaphore + (std::int64_t{batch} * p.heads + head) * m_blocks + m_block;
  }

 private:
  static std::int64_t tokens_of(const BackwardParams& p) { return std::int64_t{p.batch} * p.max_seqlen_q; }
  static int m_blocks_of(const BackwardParams& p, int block_m) {
    return (p.max_seqlen_q + block_m - 1) / block_m;
  }

  /// Byte offsets of the parts in order, each rounded up to 256 bytes, and the end of the last.
  struct Offsets {
    std::size_t lse_log2, dsum, dq_accum, tile_counter, dq_semaphore, end;
  };
  static Offsets offsets(const BackwardParams& p, int block_m) {
    const std::size_t stats = static_cast<std::size_t>(tokens_of(p)) * p.heads;
    auto bytes_of = [](std::size_t floats) { return (floats * sizeof(float) + 255) / 256 * 256; };
    Offsets o;
    o.lse_log2 = 0;
    o.dsum = o.lse_log2 + bytes_of(stats);
    o.dq_accum = o.dsum + bytes_of(stats);
    o.tile_counter = o.dq_accum + bytes_of(stats * p.head_dim);
    o.dq_semaphore = o.tile_counter + bytes_of(1);
    const std::size_t semaphores =
        p.deterministic ? static_cast<std::size_t>(p.batch) * p.heads * m_blocks_of(p, block_m) : 0;
    o.end = o.dq_semaphore + bytes_of(semaphores);  // int and float are both 4 bytes
    return o;
  }
};

}  // namespace flashattn::core
