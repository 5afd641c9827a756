#include "reference/problem.hpp"

#include <cmath>
#include <numeric>

namespace flashattn::reference {

std::int64_t Problem::total_q() const {
  return std::accumulate(seqlens_q.begin(), seqlens_q.end(), std::int64_t{0});
}

std::int64_t Problem::total_k() const {
  return std::accumulate(seqlens_k.begin(), seqlens_k.end(), std::int64_t{0});
}

std::int64_t Problem::q_start(int b) const {
  return std::accumulate(seqlens_q.begin(), seqlens_q.begin() + b, std::int64_t{0});
}

std::int64_t Problem::k_start(int b) const {
  return std::accumulate(seqlens_k.begin(), seqlens_k.begin() + b, std::int64_t{0});
}

double Problem::resolved_scale() const {
  return scale ? *scale : 1.0 / std::sqrt(static_cast<double>(head_dim));
}

}  // namespace flashattn::reference
