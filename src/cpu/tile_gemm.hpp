// flashattn — the register-blocked micro-kernel behind every product of the CPU backend.
//
// All tiles are "lane tiles": rows of kTileLanes contiguous fp32 values, the lanes being the dimension
// the work item owns (queries in the forward and the dQ pass, keys in the dK/dV pass). Every product is
//   C(r, 0:64) (+)= sum_k A(r, k) * B(k, 0:64),   A(r, k) = a[r * a_row + k * a_k]
// so A may be any strided view (row-major, or a transpose read in place) since its elements are only
// broadcast, while B and C are lane tiles. A block of kGemmRows rows of C stays in registers for the
// whole k loop: 6 rows x 4 vectors = 24 accumulators + 4 B vectors + 1 broadcast fit the 32 zmm
// registers, and each k step issues 24 FMAs for 4 vector loads and 6 broadcasts.
#pragma once

#include <cstdint>

#include "cpu/simd.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

/// Lanes of every lane tile: 4 vectors of 16.
inline constexpr int kTileLanes = 64;
inline constexpr int kTileVecs = kTileLanes / kVecLanes;
/// Rows of C held in registers by one micro-kernel call.
inline constexpr int kGemmRows = 6;

/// A strided read-only view of the A operand.
struct StridedA {
  const float* data;
  std::int64_t row;  ///< Elements between A(r, k) and A(r + 1, k).
  std::int64_t k;    ///< Elements between A(r, k) and A(r, k + 1).
};

template <int Rows, bool Accumulate>
[[gnu::always_inline]] inline void gemm_row_block(int k_count, StridedA a, const float* b, std::int64_t ldb,
                                                  float* c, std::int64_t ldc) {
  Vec acc[Rows][kTileVecs];
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < kTileVecs; ++v) {
      acc[r][v] = Accumulate ? load(c + r * ldc + v * kVecLanes) : Vec{};
    }
  }
  for (int k = 0; k < k_count; ++k) {
    const float* b_row = b + k * ldb;
    Vec b_vecs[kTileVecs];
    for (int v = 0; v < kTileVecs; ++v) b_vecs[v] = load(b_row + v * kVecLanes);
    const float* a_col = a.data + k * a.k;
    for (int r = 0; r < Rows; ++r) {
      const Vec a_value = splat(a_col[r * a.row]);
      for (int v = 0; v < kTileVecs; ++v) acc[r][v] += a_value * b_vecs[v];
    }
  }
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < kTileVecs; ++v) store(c + r * ldc + v * kVecLanes, acc[r][v]);
  }
}

/// C (rows x kTileLanes, leading dimension ldc) = or += A (rows x k_count) * B (k_count x kTileLanes).
template <bool Accumulate>
inline void tile_gemm(int rows, int k_count, StridedA a, const float* b, std::int64_t ldb, float* c,
                      std::int64_t ldc) {
  int r = 0;
  for (; r + kGemmRows <= rows; r += kGemmRows) {
    gemm_row_block<kGemmRows, Accumulate>(k_count, {a.data + r * a.row, a.row, a.k}, b, ldb, c + r * ldc,
                                          ldc);
  }
  const StridedA a_tail{a.data + r * a.row, a.row, a.k};
  float* c_tail = c + r * ldc;
  switch (rows - r) {
    case 5:
      gemm_row_block<5, Accumulate>(k_count, a_tail, b, ldb, c_tail, ldc);
      break;
    case 4:
      gemm_row_block<4, Accumulate>(k_count, a_tail, b, ldb, c_tail, ldc);
      break;
    case 3:
      gemm_row_block<3, Accumulate>(k_count, a_tail, b, ldb, c_tail, ldc);
      break;
    case 2:
      gemm_row_block<2, Accumulate>(k_count, a_tail, b, ldb, c_tail, ldc);
      break;
    case 1:
      gemm_row_block<1, Accumulate>(k_count, a_tail, b, ldb, c_tail, ldc);
      break;
    default:
      break;
  }
}

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
