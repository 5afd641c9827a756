// flashattn — what one tile of the Hopper forward computes, and how the producer hands it to the consumers.
//
// The producer thread decodes each tile of its CTA's order once (the scheduler's position to (m_block,
// head, batch), the sequence lengths, the key tiles the rows keep, the row offsets) and publishes the result
// through shared memory; the consumer warps read it there instead of repeating that integer work on the path
// from one tile's epilogue to the next tile's first Q·Kᵀ, where nothing else of theirs runs (docs/PERF.md,
// session 18). Tiles with no rows (past a short sequence's end in a varlen batch) are never published, and
// after the CTA's last tile the producer publishes an end marker.
//
// Through a WorkRingSm90 (work_ring_sm90.cuh) of three slots. The consumers copy what their main loop needs
// into registers and read what only the epilogue needs from the slot at the epilogue (held in registers
// through the main loop, those values spilled at D = 192), so a slot stays in use until the tile's end; with
// three slots the producer still publishes tile t + 2 while tile t runs.
#pragma once

#include <cstdint>

#include "cuda/common/mask.cuh"

namespace flashattn::cuda::sm90 {

/// One tile: BLOCK_M query rows of one (batch, head) against the key tiles those rows keep. With GQA
/// packing (Layouts::kPackGqa) the rows are packed rows of one (batch, kv head): row r of the sequence is
/// token r / group of query head `head` + r % group; the fields marked (packed) say what they hold then.
struct FwdWorkSm90 {
  // Read by the consumers' main loop (first, so that their copy takes few wide loads).
  int q_rows;   ///< Valid query rows of the block (< BLOCK_M at the sequence end); 0 marks the end.
  int row0;     ///< First query row of the block within its sequence (packed: first packed row).
  int n_begin;  ///< Key tiles [n_begin, n_end) hold every key some row of the block keeps.
  int n_end;
  int n_right;       ///< Key tiles n >= n_right cross the first row's key_end (and need the mask)...
  int n_left;        ///< ... as do tiles n < n_left, which cross the last row's key_begin.
  int seqlen_q;      ///< Query rows (tokens) of the sequence.
  int seqlen_k;      ///< Keys attended by the sequence.
  float slope_log2;  ///< ALiBi slope * log2(e) of this (batch, head); unused without ALiBi.
  // Read by the epilogue and the producer.
  int tma_batch;  ///< Batch coordinate of the TMA views (0 for varlen).
  int head;       ///< Query head (packed: the first query head of kv head `head_kv`).
  int head_kv;
  std::int64_t q_row_offset;  ///< Row of the sequence's first token in the TMA view of q (varlen).
  std::int64_t k_row_offset;  ///< Row of the sequence's first key in the TMA views of k and v.
  std::int64_t out_offset;  ///< Element offset of row row0 in out (packed: of token 0 of query head `head`).
  std::int64_t lse_offset;  ///< Element offset of row row0's lse entry (packed: as out_offset).
  /// A tile cut by the scheduler's stream (PersistentTileScheduler::Segment): kWholeTile, or this piece
  /// writes its partial result into slot partial_slot, or merges slot partial_slot's into its own.
  int partial_role;
  int partial_slot;

  __device__ bool has_keys() const { return n_end > n_begin; }
  /// The key interval of each query row (built where needed: four registers fewer to copy and hold).
  __device__ KeyRange key_range(const ForwardParams& p) const { return KeyRange(p, seqlen_q, seqlen_k); }
  __device__ bool is_end() const { return q_rows == 0; }
  __device__ static FwdWorkSm90 end() {
    FwdWorkSm90 work{};
    work.q_rows = 0;
    return work;
  }
};

}  // namespace flashattn::cuda::sm90
