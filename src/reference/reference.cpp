#include "reference/reference.hpp"

#include "reference/naive_attention.hpp"

namespace flashattn::reference {

using detail::NaiveAttention;
using detail::Storage;

namespace {

// fp32 values are already floats: rounding them would cost time and change nothing.
Storage storage_of(Precision precision) { return Storage{precision != Precision::fp32, precision}; }

}  // namespace

ForwardResult forward(const Problem& problem) { return NaiveAttention<double>(problem, Storage{}).forward(); }

BackwardResult backward(const Problem& problem, const std::vector<double>& dout) {
  return NaiveAttention<double>(problem, Storage{}).backward(dout);
}

ForwardResult base_forward(const Problem& problem, Precision precision) {
  return NaiveAttention<float>(problem, storage_of(precision)).forward();
}

BackwardResult base_backward(const Problem& problem, const std::vector<double>& dout, Precision precision) {
  return NaiveAttention<float>(problem, storage_of(precision)).backward(dout);
}

}  // namespace flashattn::reference
