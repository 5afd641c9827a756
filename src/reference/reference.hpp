// flashattn reference — the fp64 oracle of DESIGN.md §3 and the same-precision "base" its tolerance rule
// is calibrated against. Naive (scores materialised row by row), shares no code with any backend or with
// src/core.
#pragma once

#include <vector>

#include "reference/problem.hpp"
#include "reference/rounding.hpp"

namespace flashattn::reference {

/// Exact (float64) attention, DESIGN.md §1: rows with no key get out = 0 and lse = -inf.
ForwardResult forward(const Problem& problem);

/// Exact (float64) gradients for `dout` (total_q, H, Dv), with P, dP = dO·Vᵀ,
/// dS = P ∘ (dP - rowsum(dO ∘ O)) ∘ tanh'(softcap), dQ = scale·dS·K, dK = scale·dSᵀ·Q, dV = Pᵀ·dO,
/// dK and dV summed over each kv head's query heads. Rows with no key contribute nothing.
BackwardResult backward(const Problem& problem, const std::vector<double>& dout);

/// The base: the same naive attention in float arithmetic with P and the outputs rounded to `precision`
/// (for fp32 inputs: plain float math). Magnitudes are left 0.
ForwardResult base_forward(const Problem& problem, Precision precision);

/// The base of the backward: float arithmetic from its own forward, P and dS rounded to `precision`
/// before the products with dO, K and Q, gradients rounded to `precision`. Magnitudes are left 0.
BackwardResult base_backward(const Problem& problem, const std::vector<double>& dout, Precision precision);

}  // namespace flashattn::reference
