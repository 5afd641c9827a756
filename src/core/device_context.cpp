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

/// What selection needs to know of CUDA device `index`.
struct DeviceFacts {
  int arch = kAbsent;          ///< SM architecture (e.g. 90); kAbsent when the device does not exist.
  int max_smem_per_block = 0;  ///< Opt-in dynamic shared memory per block, bytes.
};

/// The facts of CUDA device `index`. Devices do not change within a process, so the first answer is kept
/// (racing first calls store the same values). The architecture cache holds arch + 1 and is stored after
/// the shared-memory one, so its zero-initialised state means "not asked yet" and a non-zero entry means
/// both are known.
DeviceFacts cuda_device_facts(int index) {
  static std::atomic<int> arch_cache[kCachedDevices];
  static std::atomic<int> smem_cache[kCachedDevices];
  if (index < 0) return {};
  if (index < kCachedDevices) {
    const int cached = arch_cache[index].load(std::memory_order_acquire);
    if (cached != 0) return {cached - 1, smem_cache[index].load(std::memory_order_relaxed)};
  }
  DeviceFacts facts;
  if (const auto props = cuda_device_properties(index)) {
    facts.arch = props->sm_major * 10 + props->sm_minor;
    facts.max_smem_per_block = props->max_shared_memory_per_block;
  }
  if (index < kCachedDevices) {
    smem_cache[index].store(facts.max_smem_per_block, std::memory_order_relaxed);
    arch_cache[index].store(facts.arch + 1, std::memory_order_release);
  }
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
