// A user of the installed library: one forward call on the CPU through the public header alone.
#include <cmath>
#include <cstdio>
#include <vector>

#include <flashattn/flashattn.hpp>

int main() {
  // One query, two keys, D = 1: scores 0 and 1, so out = (v0 + e * v1) / (1 + e).
  std::vector<float> q{1.0f}, k{0.0f, 1.0f}, v{2.0f, 4.0f}, out{0.0f};
  flashattn::ForwardArgs args;
  args.q = flashattn::TensorView::contiguous(q.data(), flashattn::DType::fp32, {1, 1, 1, 1});
  args.k = flashattn::TensorView::contiguous(k.data(), flashattn::DType::fp32, {1, 2, 1, 1});
  args.v = flashattn::TensorView::contiguous(v.data(), flashattn::DType::fp32, {1, 2, 1, 1});
  args.out = flashattn::TensorView::contiguous(out.data(), flashattn::DType::fp32, {1, 1, 1, 1});
  args.softmax_scale = 1.0f;
  const flashattn::Status status = flashattn::forward(args);
  const double e = std::exp(1.0), expected = (2.0 + e * 4.0) / (1.0 + e);
  if (!status.ok() || std::fabs(out[0] - expected) > 1e-5) {
    std::printf("consumer failed: %s, out %f, expected %f\n", status.to_string().c_str(), out[0], expected);
    return 1;
  }
  std::printf("consumer ok (flashattn %s)\n", flashattn::kVersion);
  return 0;
}
