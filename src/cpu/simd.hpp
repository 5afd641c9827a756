// flashattn — the CPU backend's SIMD vocabulary: a 16-lane fp32 vector written with GCC vector
// extensions (one zmm register with AVX-512, two ymm otherwise) and the few lane-wise helpers the
// kernels need. Vector types keep the hot loops explicit without tying the sources to one ISA.
#pragma once

#include <cstdint>
#include <cstring>

// The backend's sources are compiled for the host ISA (-march=native) while other code including these
// headers (the unit tests) may not be. Inline functions taking Vec then differ in calling convention, so
// they live in an inline namespace named after the ISA: each variant is its own symbol and the linker
// never merges two incompatible definitions. That also makes GCC's ABI-change note (-Wpsabi) moot.
#if defined(__AVX512F__)
#define FLASHATTN_CPU_ISA avx512
#elif defined(__AVX2__)
#define FLASHATTN_CPU_ISA avx2
#else
#define FLASHATTN_CPU_ISA baseline
#endif
#pragma GCC diagnostic ignored "-Wpsabi"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

/// 16 fp32 lanes.
using Vec = float __attribute__((vector_size(64)));
/// 16 int32 lanes; comparisons of Vec produce a VecI mask (0 or -1 per lane).
using VecI = std::int32_t __attribute__((vector_size(64)));

inline constexpr int kVecLanes = 16;
inline constexpr VecI kLaneIota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/// All lanes x. Written as x - 0, an identity for every x (x + 0 is not: -0 + 0 = +0), so it compiles
/// to a single broadcast — from memory when x is loaded — with no scalar add before it.
inline Vec splat(float x) { return x - Vec{}; }
inline VecI splat_int(std::int32_t x) { return VecI{} + x; }

/// Unaligned load / store (memcpy compiles to one vmovups).
inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }

/// Lane-wise `mask ? a : b` for a comparison mask.
inline Vec select(VecI mask, Vec a, Vec b) { return mask ? a : b; }
/// Lane-wise maximum; a NaN in `a` yields `b`.
inline Vec max(Vec a, Vec b) { return a > b ? a : b; }

/// Scalar twins of the helpers, so algebra templated on the value type (softmax_state.hpp) reads the
/// same for one row (float) and for 16 rows (Vec).
inline float select(bool mask, float a, float b) { return mask ? a : b; }
inline float max(float a, float b) { return a > b ? a : b; }

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
