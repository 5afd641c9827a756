// flashattn — the record of what actually ran. A silent fallback is a bug: every call says which
// backend and kernel ran, with which tiles, and whether (and why) a preferred path was not taken.
#pragma once

#include <cstdint>
#include <string>

namespace flashattn {

/// Which implementation family ran a call.
enum class Backend { cpu, cuda };

/// "cpu" or "cuda".
const char* to_string(Backend backend);

/// Filled by forward() and backward() when the caller passes a pointer to one.
struct RunInfo {
  Backend backend = Backend::cpu;  ///< Implementation family that ran.
  std::string kernel;              ///< Kernel key that ran, e.g. "fwd_cpu_bf16" or "fwd_sm80_bf16_hd128".
  int block_m = 0;                 ///< Query rows per tile.
  int block_n = 0;                 ///< Key rows per tile.
  int num_splits = 1;              ///< Splits along the keys (split-KV); 1 when not split.
  int num_threads = 0;             ///< CPU threads used (0 for GPU kernels).
  int num_ctas = 0;      ///< CTAs launched (GPU kernels; a persistent kernel launches <= one per SM).
  int cluster_size = 0;  ///< CTAs per thread-block cluster, 0 without clusters (decode: its splits).
  /// GQA packing: the query heads of one kv head whose rows share each tile (heads / heads_kv); 0 when every
  /// tile holds one query head's rows.
  int packed_heads = 0;
  /// Hopper forward: tiles whose key tiles two CTAs shared, merged through the workspace (a partial last
  /// round of equal tiles walked as a stream); 0 when no tile was cut.
  int cut_tiles = 0;
  bool launched = false;        ///< False when there was nothing to compute (B = 0, Sq = 0, total_q = 0).
  bool fell_back = false;       ///< True when the preferred path could not run and another did.
  std::string fallback_reason;  ///< Why, when fell_back is true.
};

/// Number of fallbacks taken by this process so far (all threads). Lets users and benchmarks assert that
/// the path they measured is the one they meant.
std::uint64_t fallback_count();

}  // namespace flashattn
