// flashattn — device description for dispatch. See device_context.hpp.
#include "core/device_context.hpp"

#include <cstdlib>
#include <cstring>

#include "core/per_device_cache.hpp"
#include "flashattn/device.hpp"
#include "flashattn/version.hpp"

namespace flashattn::core {
namespace {

constexpr int kAbsent = 0;

/// What selection needs to know of CUDA device `index`.
struct DeviceFacts {
  int arch = kAbsent;          ///< SM architecture (e.g. 90); kAbsent when the device does not exist.
  int max_smem_per_block = 0;  ///< Opt-in dynamic shared memory per block, bytes.
};

/// The facts of CUDA device `index`, each asked once per process (devices do not change while it runs).
DeviceFacts cuda_device_facts(int index) {
  static PerDeviceCache arch_cache;
  static PerDeviceCache smem_cache;
  if (index < 0) return {};
  DeviceFacts facts;
  facts.arch = arch_cache.get(index, [index] {
    const auto props = cuda_device_properties(index);
    return props ? props->sm_major * 10 + props->sm_minor : kAbsent;
  });
  facts.max_smem_per_block = smem_cache.get(index, [index] {
    const auto props = cuda_device_properties(index);
    return props ? props->max_shared_memory_per_block : 0;
  });
  return facts;
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
    const DeviceFacts facts = cuda_device_facts(device.index);
    context.arch = facts.arch;
    context.max_smem_per_block = facts.max_smem_per_block;
    context.device_present = context.arch != kAbsent;
  }
  return context;
}

}  // namespace flashattn::core
