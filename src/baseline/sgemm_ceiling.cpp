// flashattn — the CPU's matmul ceiling: the throughput OpenBLAS sgemm reaches on a square problem, the
// yardstick the benchmark reports every CPU result against.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "baseline/standard_attention.hpp"

namespace flashattn::baseline {

double measure_sgemm_gflops(int n, int repeats) {
  const std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<float> a(count), b(count), c(count);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = uniform(rng);
    b[i] = uniform(rng);
  }
  const auto run = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                c.data(), n);
  };
  run();  // Warm-up: starts OpenBLAS' threads and faults the pages in.
  std::vector<double> seconds;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  const double median = seconds[seconds.size() / 2];
  return 2.0 * n * n * static_cast<double>(n) / median * 1e-9;
}

}  // namespace flashattn::baseline
