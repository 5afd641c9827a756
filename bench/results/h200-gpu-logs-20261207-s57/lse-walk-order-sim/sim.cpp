// Online softmax lse in fp32 over key tiles walked down (diagonal first) or up, against fp64.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
int main(int argc, char** argv) {
  const int keys = 8195, tile = argc > 1 ? atoi(argv[1]) : 96, rows = 4000;
  const float scale_log2 = 1.4426950408889634f / std::sqrt(64.0f);
  std::mt19937_64 rng(1);
  std::normal_distribution<double> nd(0.0, 8.0);  // q.k of D 64 with unit-variance entries: sd 8
  double max_err[2] = {0, 0}, sum_err[2] = {0, 0};
  for (int r = 0; r < rows; ++r) {
    const int kept = keys - (rng() % 100);  // bottom-right causal: the row keeps keys [0, kept)
    std::vector<float> s(kept);
    for (auto& x : s) x = static_cast<float>(nd(rng));
    // fp64 reference
    double m = -INFINITY;
    for (float x : s) m = std::max(m, (double)x);
    double l = 0;
    for (float x : s) l += std::exp((x - m) / std::sqrt(64.0));
    const double ref = m / std::sqrt(64.0) + std::log(l);
    const int tiles = (kept + tile - 1) / tile;
    for (int up = 0; up < 2; ++up) {
      float mx = -INFINITY;
      float part[4] = {0, 0, 0, 0};  // the quad's four threads, columns interleaved in pairs of 8
      for (int i = 0; i < tiles; ++i) {
        const int t = up ? i : tiles - 1 - i;
        float tmax = mx;
        for (int c = 0; c < tile; ++c) {
          const int k = t * tile + c;
          if (k < kept) tmax = std::max(tmax, s[k]);
        }
        if (tmax > mx) {
          const float f = std::exp2((mx - tmax) * scale_log2);
          for (auto& p : part) p = (mx == -INFINITY) ? 0.0f : p * f;
          mx = tmax;
        }
        const float mscaled = mx * scale_log2;
        for (int c = 0; c < tile; ++c) {
          const int k = t * tile + c;
          if (k >= kept) continue;
          const int thread = (c % 8) / 2;
          part[thread] += std::exp2(std::fma(s[k], scale_log2, -mscaled));
        }
      }
      const float sum = (part[0] + part[1]) + (part[2] + part[3]);
      const float lse = (mx * scale_log2 + std::log2(sum)) * 0.69314718f;
      const double err = std::fabs(lse - ref);
      max_err[up] = std::max(max_err[up], err);
      sum_err[up] += err;
    }
  }
  std::printf("tile %d: down max %.3g mean %.3g | up max %.3g mean %.3g\n", tile, max_err[0],
              sum_err[0] / rows, max_err[1], sum_err[1] / rows);
}
