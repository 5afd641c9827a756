// Session 43, CPU only: ab6136e's exp2_polynomial (src/cuda/common/softmax.cuh on that commit) as the same
// fp32 operations on the host, checked against exp2 in double over every float in [-125, 0] and at the
// edges (-inf and below -125 must give 0). Build and run: g++ -O2 -ffp-contract=off check.cpp -o check &&
// ./check (output.txt: ~1 minute on one core).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
static float as_float(int32_t i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
static int32_t as_int(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i;
}
static float exp2_polynomial(float x) {
  constexpr float kRoundingShift = 12582912.0f;
  const float clamped = std::fmax(x, -125.0f);
  const float shifted = clamped + kRoundingShift;
  const float f = clamped - (shifted - kRoundingShift);
  float p = 1.32764713e-3f;
  p = std::fmaf(p, f, 9.67554189e-3f);
  p = std::fmaf(p, f, 5.55071309e-2f);
  p = std::fmaf(p, f, 2.40221202e-1f);
  p = std::fmaf(p, f, 6.93146944e-1f);
  p = std::fmaf(p, f, 1.00000012f);
  const float scaled =
      as_float(as_int(p) + static_cast<int32_t>(static_cast<uint32_t>(as_int(shifted)) << 23));
  return x < -125.0f ? 0.0f : scaled;
}
int main() {
  double worst = 0;
  float worst_x = 0;
  long n = 0;
  // every float in [-125, 0] (and a bit above 0)
  for (float x = -125.0f; x <= 1e-6f; x = std::nextafter(x, 1.0f)) {
    const double exact = std::exp2(static_cast<double>(x));
    const double rel = std::fabs(exp2_polynomial(x) / exact - 1.0);
    if (rel > worst) worst = rel, worst_x = x;
    ++n;
  }
  std::printf("%ld floats, max rel err %.3g at %.9g\n", n, worst, worst_x);
  std::printf("-inf -> %g, -125.5 -> %g, -200 -> %g, 0 -> %.9g, -1 -> %.9g, -0.5 -> %.9g\n",
              exp2_polynomial(-INFINITY), exp2_polynomial(-125.5f), exp2_polynomial(-200.f),
              exp2_polynomial(0.f), exp2_polynomial(-1.f), exp2_polynomial(-0.5f));
}
