// flashattn — per-thread fp32 scratch: one zero-initialised, 64-byte aligned allocation carved into
// tiles. Its size depends only on the tile shapes and head dims, never on sequence lengths.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <vector>

namespace flashattn::cpu {

class Scratch {
 public:
  /// One tile of `floats` values per entry, each starting on a cache line.
  explicit Scratch(std::initializer_list<std::size_t> tile_floats) {
    std::size_t total = 0;
    for (std::size_t floats : tile_floats) {
      offsets_.push_back(total);
      total += (floats + kLineFloats - 1) / kLineFloats * kLineFloats;
    }
    data_.reset(static_cast<float*>(std::aligned_alloc(64, std::max<std::size_t>(total, 1) * sizeof(float))));
    if (data_) std::fill_n(data_.get(), total, 0.0f);
  }

  /// False when the allocation failed.
  bool ok() const { return data_ != nullptr; }
  /// Tile `index`, in the order given to the constructor.
  float* tile(std::size_t index) const { return data_.get() + offsets_[index]; }

 private:
  static constexpr std::size_t kLineFloats = 16;
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };

  std::vector<std::size_t> offsets_;
  std::unique_ptr<float, Free> data_;
};

}  // namespace flashattn::cpu
