// flashattn — which query rows see a key block in the backward, and which key blocks see a query block:
// the walk of a key block's CTA, and the order of the dQ turns in deterministic runs. Shared by the sm80
// and sm90 kernels; tested on the CPU against a brute-force count (tests/cpu/test_bwd_blocks.cpp).
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

}  // namespace flashattn::core
