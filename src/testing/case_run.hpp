// flashattn testing — the pieces run_case is made of, for tests that look inside a run: the API
// arguments of a case's tensors, and the judgement of its outputs against the oracle.
#pragma once

#include <vector>

#include "testing/case_tensors.hpp"
#include "testing/check.hpp"
#include "testing/device_tensors.hpp"

namespace flashattn::testing {

/// forward() arguments reading and writing `t` (through `device`), with the case's options; with
/// target.caller_workspace, a workspace of forward_workspace_size() bytes.
ForwardArgs forward_args(const Case& c, CaseTensors& t, DeviceTensors& device, const Target& target);

/// backward() arguments: out and lse are the forward's, dout the case's random one; with
/// target.caller_workspace, a workspace sized for `deterministic` (change neither afterwards).
BackwardArgs backward_args(const Case& c, CaseTensors& t, DeviceTensors& device, const Target& target,
                           bool deterministic = false);

/// Judges out and lse of `t` (downloaded to the host) against the oracle: comparisons "out", "lse".
std::vector<Comparison> judge_forward(const Case& c, const CaseTensors& t);

/// Judges dq, dk and dv of `t` against the oracle: comparisons "dq", "dk", "dv".
std::vector<Comparison> judge_backward(const Case& c, const CaseTensors& t);

}  // namespace flashattn::testing
