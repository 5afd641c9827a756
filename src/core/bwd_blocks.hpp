// flashattn — which query rows see a key block in the backward, and which key blocks see a query block:
// the walk of a key block's CTA, the order of the dQ turns in deterministic runs, and the order of the
// tiles. Shared by the sm80 and sm90 kernels; tested on the CPU against a brute-force count
// (tests/cpu/test_bwd_blocks.cpp).
//
// Row i of a sequence (Sq query rows, Sk keys, offset = Sk - Sq: bottom-right alignment) keeps the keys
// [i + offset - window_left, i + offset + window_right] within [0, Sk); unbounded sides hold
// kUnboundedWindow. Both ends of that interval grow with i, so the rows that meet a range of keys are
// consecutive, and so are the key blocks that meet a range of rows.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace flashattn::core {

/// Query rows [begin, end) (possibly empty) whose key interval meets keys [n0, n1), n0 < n1 <= seqlen_k:
/// key_end(i) = i + offset + right + 1 > n0  <=>  i >= n0 - offset - right, and
/// key_begin(i) = i + offset - left < n1  <=>  i < n1 - offset + left (64-bit: a side may be unbounded).
struct BwdQueryRows {
  std::int64_t begin;
  std::int64_t end;
  FLASHATTN_HOST_DEVICE BwdQueryRows(int seqlen_q, int seqlen_k, std::int64_t window_left,
                                     std::int64_t window_right, int n0, int n1) {
    const std::int64_t offset = std::int64_t{seqlen_k} - seqlen_q;
    const std::int64_t first = n0 - offset - window_right;
    const std::int64_t past = n1 - offset + window_left;
    begin = first > 0 ? first : 0;
    end = past < seqlen_q ? past : std::int64_t{seqlen_q};
  }
};

/// Query blocks [begin, end) (possibly empty) of block_m rows in which every row of the sequence keeps every
/// key of [n0, n0 + block_n): a step there needs no mask. With key_begin / key_end clamped to [0, seqlen_k]
/// as the kernels compute them, block m is whole iff
///   key_begin(last row) <= n0  <=>  min((m + 1) * block_m, seqlen_q) - 1 <= n0 - offset + left, and
///   key_end(first row) >= n0 + block_n  <=>  m * block_m >= n0 + block_n - offset - right - 1 (with
///   n0 + block_n <= seqlen_k: a key block past the sequence's end is never whole);
/// the first holds for the blocks below a bound and the second from a bound on, since both ends of the rows'
/// key intervals grow with the row. The main loops compute this once per key block, not per step.
struct BwdWholeQueryBlocks {
  int begin;
  int end;
  FLASHATTN_HOST_DEVICE BwdWholeQueryBlocks(int seqlen_q, int seqlen_k, std::int64_t window_left,
                                            std::int64_t window_right, int n0, int block_m, int block_n) {
    const std::int64_t offset = std::int64_t{seqlen_k} - seqlen_q;
    const std::int64_t m_blocks = (std::int64_t{seqlen_q} + block_m - 1) / block_m;
    const std::int64_t last_row_bound = n0 - offset + window_left;
    std::int64_t below = m_blocks;  // blocks [0, below) satisfy the first condition
    if (seqlen_q - 1 > last_row_bound) below = last_row_bound + 1 <= 0 ? 0 : (last_row_bound + 1) / block_m;
    const std::int64_t first_row_bound = std::int64_t{n0} + block_n - offset - window_right - 1;
    std::int64_t from = first_row_bound <= 0 ? 0 : (first_row_bound + block_m - 1) / block_m;
    if (std::int64_t{n0} + block_n > seqlen_k) from = m_blocks;
    const std::int64_t lo = from < m_blocks ? from : m_blocks;
    const std::int64_t hi = below < m_blocks ? below : m_blocks;
    begin = static_cast<int>(lo);
    end = static_cast<int>(hi > lo ? hi : lo);
  }
};

/// The first key block (of block_n keys) whose keys meet query block m_block (of block_m rows): the block
/// holding key_begin of the block's first row, or 0.
FLASHATTN_HOST_DEVICE int bwd_first_key_block(int m_block, int block_m, int block_n, int seqlen_q,
                                              int seqlen_k, std::int64_t window_left) {
  const std::int64_t key =
      std::int64_t{m_block} * block_m + (std::int64_t{seqlen_k} - seqlen_q) - window_left;
  return key <= 0 ? 0 : static_cast<int>(key / block_n);
}

/// The last key block whose keys meet query block m_block: the block of the last key kept by the block's
/// last row of the sequence, within the sequence's keys. Meaningful for a block some key block meets.
FLASHATTN_HOST_DEVICE int bwd_last_key_block(int m_block, int block_m, int block_n, int seqlen_q,
                                             int seqlen_k, std::int64_t window_right) {
  const std::int64_t block_end = std::int64_t{m_block + 1} * block_m;
  const std::int64_t last_row = (block_end < seqlen_q ? block_end : std::int64_t{seqlen_q}) - 1;
  const std::int64_t key = last_row + (std::int64_t{seqlen_k} - seqlen_q) + window_right;
  const std::int64_t last_key = std::int64_t{seqlen_k} - 1;
  return static_cast<int>((key < last_key ? key : last_key) / block_n);
}

/// Tile `tile` of the backward's order (core::bwd_heads_per_section): `section_heads` (a divisor of
/// batch_heads) of the batch * kv head pairs at a time, key blocks slowest within them. Every tile index
/// below batch_heads * n_blocks names one (key block, pair), each once.
struct BwdTileCoord {
  int n_block;
  int batch_head;  ///< batch * heads_kv + kv head.
  FLASHATTN_HOST_DEVICE BwdTileCoord(int tile, int section_heads, int n_blocks) {
    const int section_tiles = section_heads * n_blocks;
    const int section = tile / section_tiles;
    const int within = tile - section * section_tiles;
    n_block = within / section_heads;
    batch_head = section * section_heads + (within - n_block * section_heads);
  }
};

}  // namespace flashattn::core
