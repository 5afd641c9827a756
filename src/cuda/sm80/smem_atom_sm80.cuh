// flashattn — the shared-memory tiles of the portable (sm80) kernels: tile_to_shape of an atom of 8 rows of
// a 64-element (128 B) chunk, or of 32 elements where the width is an odd multiple of 32 (head dim 96),
// XOR-swizzled so that the 8 rows an ldmatrix reads (plain or transposed) fall on all 32 banks.
#pragma once

#include <cute/tensor.hpp>

namespace flashattn::cuda::sm80 {

/// The row chunk of a tile `kColumns` elements wide: 64 where it divides the width, else 32.
template <int kColumns>
inline constexpr int kSmemRowChunkSm80 = kColumns % 64 == 0 ? 64 : 32;

template <int kRowChunk>
using SmemAtomSm80 =
    decltype(cute::composition(cute::Swizzle < kRowChunk == 64 ? 3 : 2, 3, 3 > {},
                               cute::Layout<cute::Shape<cute::_8, cute::Int<kRowChunk>>,
                                            cute::Stride<cute::Int<kRowChunk>, cute::_1>>{}));

/// A (kRows, kCols) tile of those atoms, with the row chunk its width allows.
template <int kRows, int kCols>
using SmemTileSm80 = decltype(cute::tile_to_shape(SmemAtomSm80<kSmemRowChunkSm80<kCols>>{},
                                                  cute::Shape<cute::Int<kRows>, cute::Int<kCols>>{}));

}  // namespace flashattn::cuda::sm80
