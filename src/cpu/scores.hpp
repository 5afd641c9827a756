// flashattn — turning a row of raw dot products q·k of a lane tile into log2-domain scores
//   t = log2(e) * (softcap(scale * q·k) - slope * |dist|),  masked lanes -> -inf
// (DESIGN.md §1, in the order: scale, softcap, ALiBi, mask). Shared by the forward and both backward
// passes so that they recompute exactly the same scores.
#pragma once

#include <cstdint>
#include <limits>

#include "core/params.hpp"
#include "cpu/mask.hpp"
#include "cpu/simd.hpp"
#include "cpu/tanh.hpp"
#include "cpu/tile_gemm.hpp"

namespace flashattn::cpu::inline FLASHATTN_CPU_ISA {

inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// The score transform of one (sequence, query head), constants precomputed.
struct ScoreMath {
  float scale_log2 = 0.0f;     ///< scale * log2(e): the whole transform when softcap and ALiBi are off.
  bool softcap = false;        ///< When on: t = softcap_log2 * tanh(softcap_inner * q·k).
  float softcap_inner = 0.0f;  ///< scale / softcap.
  float softcap_log2 = 0.0f;   ///< softcap * log2(e).
  bool alibi = false;          ///< When on: t -= slope_log2 * |dist|.
  float slope_log2 = 0.0f;     ///< ALiBi slope of (b, h) times log2(e).

  ScoreMath(const ForwardParams& params, int b, int h) {
    scale_log2 = params.scale * kLog2e;
    softcap = params.softcap > 0.0f;
    if (softcap) {
      softcap_inner = params.scale / params.softcap;
      softcap_log2 = params.softcap * kLog2e;
    }
    alibi = params.alibi_slopes != nullptr;
    if (alibi) slope_log2 = params.alibi_slopes[b * params.alibi_batch_stride + h] * kLog2e;
  }

  /// Transforms one lane-tile row in place. Lane l sits at distance dist_base + dist_step * l from the
  /// diagonal (dist_step is +1 when lanes are queries, -1 when lanes are keys); lanes outside `keep`
  /// become -inf. With softcap on and `dtanh_row` given, also writes d(softcap)/d(raw score) / scale,
  /// i.e. 1 - tanh^2, for the backward.
  void apply(float* row, std::int64_t dist_base, int dist_step, LaneSpan keep, float* dtanh_row) const {
    for (int v = 0; v < kTileVecs; ++v) {
      const Vec raw = load(row + v * kVecLanes);
      Vec t;
      if (softcap) {
        const Vec u = tanh(raw * softcap_inner);
        t = u * softcap_log2;
        if (dtanh_row) store(dtanh_row + v * kVecLanes, 1.0f - u * u);
      } else {
        t = raw * scale_log2;
      }
      if (alibi) {
        const Vec lane = __builtin_convertvector(kLaneIota + v * kVecLanes, Vec);
        const Vec dist = static_cast<float>(dist_base) + static_cast<float>(dist_step) * lane;
        t -= slope_log2 * select(dist < 0.0f, -dist, dist);
      }
      if (!keep.full()) t = select(keep.keep_mask(v), t, splat(kNegInf));
      store(row + v * kVecLanes, t);
    }
  }
};

}  // namespace flashattn::cpu::inline FLASHATTN_CPU_ISA
