// flashattn — one int per CUDA device, computed on first use and kept for the process (device facts such
// as the SM count or a kernel's PTX version do not change while it runs). Thread-safe without a lock:
// racing first calls compute and store the same value.
#pragma once

#include <atomic>

namespace flashattn::core {

class PerDeviceCache {
 public:
  /// The value for `device`, from `compute()` on the first call for it (every call for devices past the
  /// cache's size; negative devices get `compute()` too, which should answer for them).
  template <class Compute>
  int get(int device, const Compute& compute) {
    if (device >= 0 && device < kDevices) {
      const int cached = values_[device].load(std::memory_order_relaxed);
      if (cached != 0) return cached - 1;
    }
    const int value = compute();
    if (device >= 0 && device < kDevices) values_[device].store(value + 1, std::memory_order_relaxed);
    return value;
  }

 private:
  static constexpr int kDevices = 64;
  std::atomic<int> values_[kDevices]{};  ///< value + 1; 0 = not computed yet
};

}  // namespace flashattn::core
