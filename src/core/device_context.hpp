// flashattn — the impure half of dispatch: what the device is and what the policy says, gathered once per
// call for the pure select_kernel().
#pragma once

#include "core/dispatch.hpp"

namespace flashattn::core {

/// Describes `device` for selection: whether CUDA is built, whether the device exists, its SM architecture
/// and the shared memory one block may opt in to (read once per device and cached: a property query costs
/// far more than a launch), the preferred path, and FLASHATTN_STRICT.
DeviceContext device_context(Device device, CudaPath path);

}  // namespace flashattn::core
