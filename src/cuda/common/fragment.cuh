// flashattn — views and conversions of mma.sync m16n8k16 register fragments (CuTe SM80 atoms).
//
// An accumulator tile partitioned by a TiledMMA has layout ((2, 2), MMA_M, MMA_N): per 16x8 atom a thread
// holds 2 adjacent columns (mode 0 of the pair) of 2 rows 8 apart (mode 1). The softmax wants
// (rows, cols); the P·V product wants the A operand of m16n8k16, which is two 16x8 C atoms side by side.
#pragma once

#include <cutlass/numeric_conversion.h>
#include <cute/tensor.hpp>

namespace flashattn::cuda {

/// ((2, 2), MMA_M, MMA_N) -> ((2, MMA_M), (2, MMA_N)): a (rows, cols) view of an accumulator layout.
template <class Layout>
__device__ __forceinline__ constexpr auto acc_rowcol_layout(Layout layout) {
  using namespace cute;
  static_assert(rank(Layout{}) == 3 && size<0>(Layout{}) == 4, "expects an m16n8 accumulator layout");
  auto atom = get<0>(layout);  // (2 columns, 2 row halves)
  return make_layout(make_layout(get<1>(atom), get<1>(layout)), make_layout(get<0>(atom), get<2>(layout)));
}

/// (rows, cols) view of an accumulator tensor (shares its registers).
template <class Tensor>
__device__ __forceinline__ auto acc_rowcol(Tensor&& acc) {
  return cute::make_tensor(acc.data(), acc_rowcol_layout(acc.layout()));
}

/// ((2, 2), MMA_M, MMA_N) -> ((2, 2, 2), MMA_M, MMA_N / 2): an accumulator read as the A operand of the
/// next m16n8k16 product (its k = the accumulator's n, 16 = two 8-column atoms).
template <class Layout>
__device__ __forceinline__ constexpr auto acc_as_a_layout(Layout layout) {
  using namespace cute;
  static_assert(size<2>(Layout{}) % 2 == 0, "the accumulator's N must be a multiple of 16");
  auto split = logical_divide(layout, Shape<Underscore, Underscore, _2>{});  // ((2,2), M, (2, N/2))
  return make_layout(make_layout(get<0>(split), get<2, 0>(split)), get<1>(split), get<2, 1>(split));
}

/// Rounds a compact fp32 register tensor `from` into `to` (same size, element type To) to nearest even,
/// converted in vectors. `to` may be a view of `from`'s own registers (its first half): every element is
/// read before any is written.
template <class FromTensor, class ToTensor>
__device__ __forceinline__ void convert_fragment_into(const FromTensor& from, ToTensor& to) {
  using From = typename std::remove_cv_t<std::remove_reference_t<FromTensor>>::value_type;
  using To = typename std::remove_cv_t<std::remove_reference_t<ToTensor>>::value_type;
  constexpr int kN = decltype(cute::size(from))::value;
  static_assert(decltype(cute::size(to))::value == kN, "conversion keeps the element count");
  cutlass::NumericArrayConverter<To, From, kN> convert;
  *reinterpret_cast<cutlass::Array<To, kN>*>(cute::raw_pointer_cast(to.data())) =
      convert(*reinterpret_cast<const cutlass::Array<From, kN>*>(cute::raw_pointer_cast(from.data())));
}

/// A register tensor of `To` with the layout of `from` (a compact fp32 register tensor), rounded to
/// nearest even.
template <class To, class Tensor>
__device__ __forceinline__ auto convert_fragment(const Tensor& from) {
  auto to = cute::make_tensor<To>(from.layout());
  convert_fragment_into(from, to);
  return to;
}

}  // namespace flashattn::cuda
