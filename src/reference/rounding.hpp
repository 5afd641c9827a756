// flashattn reference — rounding of real numbers to the storage dtypes, written from the IEEE definitions
// (frexp / ldexp / round-half-even) rather than bit manipulation, so it shares nothing with
// core/numeric.hpp and the tests can hold the two against each other.
#pragma once

namespace flashattn::reference {

/// The storage precision of a computation's inputs, intermediates that the GPU kernels round (P, dS) and
/// outputs.
enum class Precision { fp32, fp16, bf16 };

/// Nearest fp16 value (ties to even); beyond the largest finite value rounds to +-infinity; NaN stays NaN.
double round_to_fp16(double x);

/// Nearest bf16 value (ties to even), same conventions.
double round_to_bf16(double x);

/// Nearest fp32 value (ties to even).
double round_to_fp32(double x);

/// Nearest value of `precision`.
double round_to(Precision precision, double x);

}  // namespace flashattn::reference
