// flashattn CLI — benchmark points and their sweep.
#include "bench_point.hpp"

namespace flashattn::cli {

testing::Case BenchPoint::to_case() const {
  testing::Case c = testing::make_dense_case(dtype, head_dim, batch, heads, heads_kv, seqlen_q, seqlen_k, 1);
  c.causal = causal;
  c.window_left = window_left;
  c.window_right = window_right;
  return c;
}

double BenchPoint::flops() const {
  const double forward = testing::forward_flops(to_case());
  return op == testing::Op::backward ? 2.5 * forward : forward;
}

std::vector<BenchPoint> expand(const SweepSpec& spec) {
  std::vector<BenchPoint> points;
  for (int batch : spec.batch) {
    for (int heads : spec.heads) {
      const std::vector<int> kv_list = spec.heads_kv.empty() ? std::vector<int>{heads} : spec.heads_kv;
      for (int heads_kv : kv_list) {
        for (int seqlen_q : spec.seqlen_q) {
          const std::vector<int> k_list = spec.seqlen_k.empty() ? std::vector<int>{seqlen_q} : spec.seqlen_k;
          for (int seqlen_k : k_list) {
            for (int head_dim : spec.head_dim) {
              BenchPoint p;
              p.op = spec.op;
              p.dtype = spec.dtype;
              p.batch = batch;
              p.heads = heads;
              p.heads_kv = heads_kv;
              p.seqlen_q = seqlen_q;
              p.seqlen_k = seqlen_k;
              p.head_dim = head_dim;
              p.causal = spec.causal;
              p.window_left = spec.window_left;
              p.window_right = spec.window_right;
              p.cuda_path = spec.cuda_path;
              points.push_back(p);
            }
          }
        }
      }
    }
  }
  return points;
}

}  // namespace flashattn::cli
