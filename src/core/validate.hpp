// flashattn — validation and normalisation of the public arguments (DESIGN.md §1).
//
// Every rule of the semantics is checked here, once, before any backend sees the call: on failure the
// Status names the argument and the rule, and nothing has been launched or written. On success the
// arguments are normalised into the plain params structs the backends take (defaults resolved, causal
// folded into the window, dense and varlen addressing unified).
#pragma once

#include "core/params.hpp"
#include "flashattn/attention.hpp"

namespace flashattn::core {

/// Checks `args` and fills `params`. Reads host-resident cu_seqlens / seqused_k to check their contents.
Status validate_forward(const ForwardArgs& args, ForwardParams& params);

/// Checks `args` (including out, dout, lse, dq, dk, dv) and fills `params`.
Status validate_backward(const BackwardArgs& args, BackwardParams& params);

}  // namespace flashattn::core
