// flashattn — the last step of the epilogues: a tile (O; dK and dV) leaves shared memory for global memory in
// 16-byte copies, only for the rows that belong to the tile's sequence.
#pragma once

#include <cute/tensor.hpp>

namespace flashattn::cuda {

/// Copies a shared-memory tile of O to global memory through registers with a tiled copy, writing only the
/// rows below `valid_rows` (the tile's rows past the sequence end belong to another sequence or to none).
/// `tOsO`, `tOgO`, `tOcO`: the thread's partitions of the shared tile, the global tile and the tile's
/// identity (row, column) coordinates, each (CPY, CPY_M, CPY_K).
template <class TiledCopy, class TensorS, class TensorG, class TensorC>
__device__ __forceinline__ void store_rows_predicated(const TiledCopy& gmem_copy, const TensorS& tOsO,
                                                      TensorG& tOgO, const TensorC& tOcO, int valid_rows) {
  using namespace cute;
  Tensor tOrO = make_tensor<typename TensorS::value_type>(shape(tOgO));
  copy(gmem_copy, tOsO, tOrO);
  CUTE_UNROLL
  for (int m = 0; m < size<1>(tOgO); ++m) {
    if (get<0>(tOcO(0, m, 0)) < valid_rows) copy(gmem_copy, tOrO(_, m, _), tOgO(_, m, _));
  }
}

/// Copies a shared tile to its global tile with thread `thread`'s slice of `gmem_copy`, writing only the rows
/// below `valid_rows`. sX, gX: (ROWS, COLS).
template <class TiledCopy, class SX, class GX>
__device__ __forceinline__ void store_tile_rows_predicated(const TiledCopy& gmem_copy, int thread,
                                                           const SX& sX, GX& gX, int valid_rows) {
  using namespace cute;
  auto gmem_thr = gmem_copy.get_thread_slice(thread);
  Tensor tXgX = gmem_thr.partition_D(gX);
  store_rows_predicated(gmem_copy, gmem_thr.partition_S(sX), tXgX,
                        gmem_thr.partition_D(make_identity_tensor(product_each(shape(sX)))), valid_rows);
}

/// Copies the shared tiles of dK and dV to their global tiles with thread `thread`'s slice of `gmem_copy`,
/// writing only the rows below `valid_rows` (both backward epilogues). sdK, sdV, gdK, gdV: (ROWS, COLS).
template <class TiledCopy, class SdK, class SdV, class GdK, class GdV>
__device__ __forceinline__ void store_dkdv_rows_predicated(const TiledCopy& gmem_copy, int thread,
                                                           const SdK& sdK, const SdV& sdV, GdK& gdK, GdV& gdV,
                                                           int valid_rows) {
  using namespace cute;
  auto gmem_thr = gmem_copy.get_thread_slice(thread);
  Tensor tcKV = gmem_thr.partition_D(make_identity_tensor(product_each(shape(sdK))));  // (row, col)
  Tensor tdKgdK = gmem_thr.partition_D(gdK);
  Tensor tdVgdV = gmem_thr.partition_D(gdV);
  store_rows_predicated(gmem_copy, gmem_thr.partition_S(sdK), tdKgdK, tcKV, valid_rows);
  store_rows_predicated(gmem_copy, gmem_thr.partition_S(sdV), tdVgdV, tcKV, valid_rows);
}

/// Writes the lse of the thread's accumulator rows below `valid_rows`. `tOcO_rc`: the thread's (ROWS, COLS)
/// view of its accumulator's identity coordinates; only the thread holding column 0 of a row writes it, so
/// each row is written once. `lse`: the thread's kRows values; `lse_out`: the tile's first row in global.
template <int kRows, class CoordRowCol>
__device__ __forceinline__ void store_lse_rows(const CoordRowCol& tOcO_rc, const float (&lse)[kRows],
                                               float* lse_out, int valid_rows) {
  using namespace cute;
  static_assert(decltype(size<0>(tOcO_rc))::value == kRows);
  if (get<1>(tOcO_rc(0, 0)) != 0) return;
  CUTE_UNROLL
  for (int r = 0; r < kRows; ++r) {
    const int row = get<0>(tOcO_rc(r, 0));
    if (row < valid_rows) lse_out[row] = lse[r];
  }
}

}  // namespace flashattn::cuda
