// flashattn testing — device_timing.hpp in a build without CUDA: there is no device to time on.
#if !defined(FLASHATTN_WITH_CUDA)

#include "testing/device_timing.hpp"

namespace flashattn::testing::device_timing {

Status time_call(Device, const Call&, const Options&, Samples& samples) {
  samples = {};
  return {StatusCode::unsupported, "timing: this build of the testing layer has no CUDA (DeviceKind::cuda)"};
}

}  // namespace flashattn::testing::device_timing

#endif
