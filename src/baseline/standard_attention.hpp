// flashattn — "standard attention" on the CPU: what a framework's unfused path does. The scores of every
// (batch, head) are materialised as fp32 matrices with OpenBLAS sgemm, softmax is applied row by row,
// then P·V is another sgemm. It is the fair peer of the CPU flash backend (same inputs, same machine) and
// its memory grows with B·H·Sq·Sk, which is the point of comparison.
#pragma once

#include <string>

#include "core/params.hpp"
#include "flashattn/status.hpp"

namespace flashattn::baseline {

/// Standard attention forward on host memory for any dtype the API takes (fp16/bf16 inputs are widened
/// to fp32 first, output rounded back). Supports every option of the semantics (masking, softcap, ALiBi,
/// GQA, varlen), so it can be verified against the oracle like a backend.
Status standard_forward(const ForwardParams& params);

/// Standard attention backward (materialised P and dP, sgemm for the four products).
Status standard_backward(const BackwardParams& params);

/// Measured single-precision matmul throughput of this machine: an n x n x n cblas_sgemm with OpenBLAS'
/// threads, median of `repeats` after a warm-up, in GFLOP/s (2 n^3 flops). The CPU ceiling.
double measure_sgemm_gflops(int n, int repeats);

/// Threads for the baseline: OpenBLAS' and OpenMP's (the softmax loops). 0 leaves both at their default.
void set_num_threads(int num_threads);

/// The BLAS library behind the baseline and its configuration, e.g. "OpenBLAS 0.3.21 ... (Haswell)".
std::string blas_description();

}  // namespace flashattn::baseline
