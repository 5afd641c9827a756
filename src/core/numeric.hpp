// flashattn — host conversions between fp16 / bf16 bit patterns and float, round-to-nearest-even.
// Header-only and branch-light so the CPU backend's tile loaders vectorise them. NaN and infinity are
// preserved (NaN-poisoned padding must stay NaN through a conversion).
#pragma once

#include <bit>
#include <cstdint>

namespace flashattn::numeric {

/// bf16 bits -> float (exact).
inline float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

/// float -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN.
inline std::uint16_t float_to_bf16(float value) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

/// fp16 bits -> float (exact, subnormals included).
inline float fp16_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Subnormal or zero: mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/// float -> fp16 bits, round to nearest even; overflow gives infinity, NaN stays a (quiet) NaN.
inline std::uint16_t float_to_fp16(float value) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to >= 65520
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero) in fp16: round |value| * 2^24 to an integer, ties to even.
    // The float addition of 0.5 * 2^23 performs exactly that rounding.
    const float scaled = std::bit_cast<float>(abs) * 0x1p24f;
    const std::uint32_t m =
        std::bit_cast<std::uint32_t>(scaled + 0x1p23f) - std::bit_cast<std::uint32_t>(0x1p23f);
    return static_cast<std::uint16_t>(sign | m);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even.
  const std::uint32_t rebased = abs - (112u << 23);
  const std::uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

}  // namespace flashattn::numeric
