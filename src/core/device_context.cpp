// flashattn — device description for dispatch. See device_context.hpp.
#include "core/device_context.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "flashattn/device.hpp"
#include "flashattn/version.hpp"

namespace flashattn::core {
namespace {

constexpr int kCachedDevices = 64;
constexpr int kAbsent = 0;

/// SM architecture of CUDA device `index` (e.g. 90), or 0 when it does not exist. Devices do not change
/// within a process, so the first answer is kept (racing first calls store the same value). The cache
/// holds arch + 1, so its zero-initialised state means "not asked yet".
int cuda_arch(int index) {
  static std::atomic<int> cache[kCachedDevices];
  if (index < 0) return kAbsent;
  if (index < kCachedDevices) {
    const int cached = cache[index].load(std::memory_order_relaxed);
    if (cached != 0) return cached - 1;
  }
  const auto props = cuda_device_properties(index);
  const int arch = props ? props->sm_major * 10 + props->sm_minor : kAbsent;
  if (index < kCachedDevices) cache[index].store(arch + 1, std::memory_order_relaxed);
  return arch;
}

}  // namespace

DeviceContext device_context(Device device, CudaPath path) {
  DeviceContext context;
  context.kind = device.kind;
  context.path = path;
  const char* strict = std::getenv("FLASHATTN_STRICT");
  context.strict = strict != nullptr && std::strcmp(strict, "1") == 0;
  context.cuda_built = build_info().cuda;
  if (device.kind == DeviceKind::cuda && context.cuda_built) {
    context.arch = cuda_arch(device.index);
    context.device_present = context.arch != kAbsent;
  }
  return context;
}

}  // namespace flashattn::core
