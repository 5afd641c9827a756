// flashattn — the 16-byte global-memory copies of the portable (sm80) kernels: a CTA's threads move rows of
// `kRowChunk` elements (one shared-memory swizzle row) in 16-byte vectors, kRowChunk / 8 threads per row,
// so a warp touches whole 128-byte lines. Loads are cp.async.cg (L1 bypassed: a CTA reads each tile once;
// reuse goes through L2); stores are plain 16-byte stores.
#pragma once

#include <cute/tensor.hpp>

namespace flashattn::cuda::sm80 {

template <class Element, int kThreads, int kRowChunk>
struct GmemCopiesSm80 {
  static constexpr int kThreadsPerRow = kRowChunk / 8;
  static_assert(kThreads % kThreadsPerRow == 0, "whole rows per pass");
  /// Rows one pass of the CTA covers.
  static constexpr int kRowsPerPass = kThreads / kThreadsPerRow;
  using ThreadLayout = cute::Layout<cute::Shape<cute::Int<kRowsPerPass>, cute::Int<kThreadsPerRow>>,
                                    cute::Stride<cute::Int<kThreadsPerRow>, cute::_1>>;
  using ValueLayout = cute::Layout<cute::Shape<cute::_1, cute::_8>>;
  using TiledLoad = decltype(cute::make_tiled_copy(
      cute::Copy_Atom<cute::SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, Element>{}, ThreadLayout{},
      ValueLayout{}));
  using TiledStore = decltype(cute::make_tiled_copy(
      cute::Copy_Atom<cute::UniversalCopy<cute::uint128_t>, Element>{}, ThreadLayout{}, ValueLayout{}));
};

}  // namespace flashattn::cuda::sm80
