// flashattn — the Hopper backward's dQ staging with the keys split (D <= 128): one consumer warpgroup's
// fp32 dQ accumulator (wgmma m64nN, N = its half of the head dim; or transposed, M = its half of the head
// dim and N = the query rows) stored into its block of the staging buffer that the dQ writer's TMA
// reduce-add reads (SmemLayoutdQWarpGroup: 128-byte swizzled atoms of 8 rows
// x 32 floats, tiled rows first).
//
// The addresses, derived once (rather than CuTe's per-store 64-bit generic address, add and swizzle: ~40
// integer instructions a step on the consumers' critical path). Byte address of (row r, column c) in the
// block: A = r%8·128 + r/8·1024 + c/32·(64·128) + c%4·4 + 16·(((c%32)/4) ^ (r%8)), the 128-byte swizzle
// XORing address bits [4, 7) with bits [7, 10) (the buffer is 1024-aligned). The accumulator's element
// i = e + 2h + 4j of lane l in warp w (of the warpgroup) is (r, c) = (16w + 8h + l/4, 8j + 2(l%4) + e), so
// r%8 = l/4 and (c%32)/4 = 2(j%4) + (l%4)/2; since 2(j%4) has no bit 0, 16·((2(j%4) + a) ^ q) =
// 32(j%4) ^ 16(a ^ q), and with U the address of (j, h, e) = 0 (bits [4, 7) hold 16(a ^ q) alone):
//   A(j, h, e) = (U ^ 32(j%4)) + j/4·8192 + h·1024 + 4e.
// One 8-byte store per (j, h), from three XORs of U and immediate offsets. Checked against CuTe's layout
// for every thread and element (D 64 and 128); the GPU tests check dQ against the oracle.
//
// Banks: a half-warp's store covers 4 rows q (quad rows) x 32 bytes, at 16-byte chunk pair (q/2) ^ (j%4) of
// the 128-byte row, so rows q and q ^ 1 land on the same banks: 2 wavefronts where 1 carries the 128 bytes
// (ncu: 8.4M excess wavefronts at D 128, S 16k, in a kernel bound by shared-memory wavefronts: wgmma operand
// reads, TMA, stores). Hence the lanes of odd q store group j ^ 2 in store j (their pair becomes
// (q/2) ^ (j%4) ^ 2, so the 4 rows take 4 distinct pairs): their base is U ^ 64 (32·((j^2)%4) = 32(j%4) ^
// 64), and their values are picked by a select. Checked by enumeration: every store conflict-free, every
// element stored once.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

namespace flashattn::cuda::sm90 {

/// Stores warpgroup thread `wg_thread`'s dQ accumulator `acc` (64 x kCols, fp32, the wgmma C layout) into
/// the staging block at shared-memory byte address `block` (1024-aligned).
template <int kCols, class Accumulator>
__device__ __forceinline__ void stage_dq_keys_split(const Accumulator& acc, std::uint32_t block,
                                                    std::uint32_t wg_thread) {
  static_assert(kCols % 32 == 0 && kCols <= 128, "whole 32-float swizzle atoms, one wgmma N");
  static_assert(decltype(cute::size(acc))::value == kCols / 2, "a 64 x kCols accumulator per warpgroup");
  constexpr std::uint32_t kAtomColumnBytes = 64 * 128;  // 64 rows of one 32-float atom column
  const std::uint32_t warp = wg_thread / 32;
  const std::uint32_t lane = wg_thread % 32;
  const std::uint32_t quad_row = lane / 4;
  const bool odd_row = quad_row % 2 != 0;
  const std::uint32_t u =
      (block + warp * 2048 + quad_row * 128 + (lane % 2) * 8 + 16 * (((lane % 4) / 2) ^ quad_row)) ^
      (odd_row ? 64u : 0u);
  CUTE_UNROLL
  for (int j = 0; j < kCols / 8; ++j) {
    const std::uint32_t group = (u ^ (32 * (j % 4))) + (j / 4) * kAtomColumnBytes;
    CUTE_UNROLL
    for (int h = 0; h < 2; ++h) {  // odd rows store accumulator group j ^ 2 here
      const float x = odd_row ? acc(4 * (j ^ 2) + 2 * h) : acc(4 * j + 2 * h);
      const float y = odd_row ? acc(4 * (j ^ 2) + 2 * h + 1) : acc(4 * j + 2 * h + 1);
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(group + h * 1024), "f"(x), "f"(y) : "memory");
    }
  }
}

/// Stores warpgroup thread `wg_thread`'s transposed dQ accumulator `acc` (dQᵀ: 64 head-dim columns x kRows
/// query rows, fp32, the wgmma C layout; BwdTileSm90::dq_transposed) into the staging block at shared-memory
/// byte address `block` (1024-aligned; kRows x 64 floats, the layout above with kRows rows).
///
/// Element i = e + 2h + 4j of lane l in warp w is (head-dim column c, query row r) = (16w + 8h + l/4,
/// 8j + 2(l%4) + e): r%8 = 2(l%4) + e, r/8 = j, c/32 = w/2, c%4 = (l/4)%4 and (c%32)/4 = 4(w%2) + 2h + l/16.
/// Both sides of the swizzle's XOR are sums of distinct bits, so 16·((c%32)/4 ^ r%8) = 16·x0 ^ 32h ^ 16e
/// with x0 = (4(w%2) + l/16) ^ 2(l%4), and with U the address of (j, h, e) = 0:
///   A(j, h, e) = (U ^ (32h + 16e)) + 128e + 1024j.
/// Adjacent values are adjacent rows, so each store is 4 bytes: 2 · kRows / 8 · 2 of them, from four bases
/// with immediate offsets. Banks (address bits [2, 7)): lane bits 2 and 3 set address bits 2 and 3, and lane
/// bits 0, 1 and 4 set the three bits of x0, address bits [4, 7), so the 32 lanes of a store cover the 32
/// banks once. Checked by enumerating A against the layout formula above for kRows 64 and 80 (every element
/// stored once, every store conflict-free); the GPU tests check dQ against the oracle.
template <int kRows, class Accumulator>
__device__ __forceinline__ void stage_dq_transposed(const Accumulator& acc, std::uint32_t block,
                                                    std::uint32_t wg_thread) {
  static_assert(kRows % 16 == 0 && kRows <= 256, "whole k-steps of query rows, one wgmma N");
  static_assert(decltype(cute::size(acc))::value == kRows / 2, "a 64 x kRows accumulator per warpgroup");
  constexpr std::uint32_t kAtomColumnBytes = kRows * 128;  // kRows rows of one 32-float atom column
  const std::uint32_t warp = wg_thread / 32;
  const std::uint32_t lane = wg_thread % 32;
  const std::uint32_t x0 = ((warp % 2) * 4 + lane / 16) ^ ((lane % 4) * 2);
  const std::uint32_t u =
      block + (lane % 4) * 256 + (warp / 2) * kAtomColumnBytes + ((lane / 4) % 4) * 4 + 16 * x0;
  CUTE_UNROLL
  for (int h = 0; h < 2; ++h) {
    CUTE_UNROLL
    for (int e = 0; e < 2; ++e) {
      const std::uint32_t base = (u ^ (32 * h + 16 * e)) + 128 * e;
      CUTE_UNROLL
      for (int j = 0; j < kRows / 8; ++j) {
        asm volatile("st.shared.f32 [%0], %1;" ::"r"(base + 1024 * j), "f"(acc(e + 2 * h + 4 * j))
                     : "memory");
      }
    }
  }
}

}  // namespace flashattn::cuda::sm90
