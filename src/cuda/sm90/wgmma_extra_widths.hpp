// flashattn — the wgmma widths of the Hopper forward's key tiles that CuTe's default set lacks (N = 80, 112
// and 144: D = 256's, D = 192's and D = 128's long-key tiles of S = Q·Kᵀ), as CuTe MMA atoms, and the
// selector the forward's layouts take their Q·Kᵀ atom from.
//
// Why our own: CuTe has these m64nNk16 instructions only under CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED, which
// adds every multiple of 8 up to 256 for every operand type and source, dense and sparse (~7 MB of headers):
// ~13 s of cudafe++, ~5 s of cicc and ~1 s of host compile in each TU that defined it (docs/PERF.md, build
// time). Each atom here is the instruction CuTe's would issue (m64nNk16, fp32 accumulators, fp16 or bf16 A
// and B as shared-memory descriptors, both K-major, unscaled inputs), with CuTe's register contract, so a
// kernel's SASS is the same with either.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cute/tensor.hpp>

#include "cuda/sm90/wgmma_shapes.hpp"

namespace flashattn::cuda::sm90 {

/// Whether WgmmaSsF32 has an atom of width `n`.
constexpr bool wgmma_extra_width(int n) { return n == 80 || n == 112 || n == 144; }

/// m64nNk16 wgmma, fp32 accumulators, Element (fp16 or bf16) A and B in shared memory, both K-major: CuTe's
/// SS atom of that width, specialised below for the widths of wgmma_extra_width.
template <class Element, int kN>
struct WgmmaSsF32;

// GCC-style inline asm has no operand packs and nvcc no named operands, so each width spells its
// accumulators out, by decade (tens digit t, empty for 0-9): fma's parameters d<t>0..d<t>9, the asm outputs
// bound to them, and the "%<t>0, ..., %<t>9" text naming those outputs in the instruction.
#define FLASHATTN_WGMMA_PARAMS_2(t) float &d##t##0, float &d##t##1
#define FLASHATTN_WGMMA_PARAMS_6(t) \
  FLASHATTN_WGMMA_PARAMS_2(t), float &d##t##2, float &d##t##3, float &d##t##4, float &d##t##5
#define FLASHATTN_WGMMA_PARAMS_10(t) \
  FLASHATTN_WGMMA_PARAMS_6(t), float &d##t##6, float &d##t##7, float &d##t##8, float &d##t##9
#define FLASHATTN_WGMMA_OUTPUTS_2(t) "+f"(d##t##0), "+f"(d##t##1)
#define FLASHATTN_WGMMA_OUTPUTS_6(t) \
  FLASHATTN_WGMMA_OUTPUTS_2(t), "+f"(d##t##2), "+f"(d##t##3), "+f"(d##t##4), "+f"(d##t##5)
#define FLASHATTN_WGMMA_OUTPUTS_10(t) \
  FLASHATTN_WGMMA_OUTPUTS_6(t), "+f"(d##t##6), "+f"(d##t##7), "+f"(d##t##8), "+f"(d##t##9)
#define FLASHATTN_WGMMA_REGS_2(t) "%" #t "0, %" #t "1"
#define FLASHATTN_WGMMA_REGS_6(t) FLASHATTN_WGMMA_REGS_2(t) ", %" #t "2, %" #t "3, %" #t "4, %" #t "5"
#define FLASHATTN_WGMMA_REGS_10(t) FLASHATTN_WGMMA_REGS_6(t) ", %" #t "6, %" #t "7, %" #t "8, %" #t "9"

// clang-format off
// The 40, 56 and 72 accumulators of the 80-, 112- and 144-wide instructions.
#define FLASHATTN_WGMMA_N80_PARAMS                                                         \
  FLASHATTN_WGMMA_PARAMS_10(), FLASHATTN_WGMMA_PARAMS_10(1), FLASHATTN_WGMMA_PARAMS_10(2), \
  FLASHATTN_WGMMA_PARAMS_10(3)
#define FLASHATTN_WGMMA_N80_OUTPUTS                                                           \
  FLASHATTN_WGMMA_OUTPUTS_10(), FLASHATTN_WGMMA_OUTPUTS_10(1), FLASHATTN_WGMMA_OUTPUTS_10(2), \
  FLASHATTN_WGMMA_OUTPUTS_10(3)
#define FLASHATTN_WGMMA_N80_REGS                                                                  \
  FLASHATTN_WGMMA_REGS_10() ", " FLASHATTN_WGMMA_REGS_10(1) ", " FLASHATTN_WGMMA_REGS_10(2) ", " \
  FLASHATTN_WGMMA_REGS_10(3)
#define FLASHATTN_WGMMA_N112_PARAMS \
  FLASHATTN_WGMMA_N80_PARAMS, FLASHATTN_WGMMA_PARAMS_10(4), FLASHATTN_WGMMA_PARAMS_6(5)
#define FLASHATTN_WGMMA_N112_OUTPUTS \
  FLASHATTN_WGMMA_N80_OUTPUTS, FLASHATTN_WGMMA_OUTPUTS_10(4), FLASHATTN_WGMMA_OUTPUTS_6(5)
#define FLASHATTN_WGMMA_N112_REGS \
  FLASHATTN_WGMMA_N80_REGS ", " FLASHATTN_WGMMA_REGS_10(4) ", " FLASHATTN_WGMMA_REGS_6(5)
#define FLASHATTN_WGMMA_N144_PARAMS                                                       \
  FLASHATTN_WGMMA_N80_PARAMS, FLASHATTN_WGMMA_PARAMS_10(4), FLASHATTN_WGMMA_PARAMS_10(5), \
  FLASHATTN_WGMMA_PARAMS_10(6), FLASHATTN_WGMMA_PARAMS_2(7)
#define FLASHATTN_WGMMA_N144_OUTPUTS                                                         \
  FLASHATTN_WGMMA_N80_OUTPUTS, FLASHATTN_WGMMA_OUTPUTS_10(4), FLASHATTN_WGMMA_OUTPUTS_10(5), \
  FLASHATTN_WGMMA_OUTPUTS_10(6), FLASHATTN_WGMMA_OUTPUTS_2(7)
#define FLASHATTN_WGMMA_N144_REGS                                                                 \
  FLASHATTN_WGMMA_N80_REGS ", " FLASHATTN_WGMMA_REGS_10(4) ", " FLASHATTN_WGMMA_REGS_10(5) ", " \
  FLASHATTN_WGMMA_REGS_10(6) ", " FLASHATTN_WGMMA_REGS_2(7)

// One instruction: the accumulators are outputs %0..%(n/2 - 1), the descriptors %(n/2) and %(n/2 + 1),
// scale_d %(n/2 + 2) (`desc_a`, `desc_b`, `scale_d`: those operand numbers as text). scale_d = 0 overwrites
// the accumulators (a tile's first k-step), 1 adds to them; the inputs are unscaled (1, 1) and both K-major
// (0, 0), as CuTe's ss_op_selector issues them for Q·Kᵀ.
#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)
#define FLASHATTN_WGMMA_SS_F32_ASM(n, ptx_types, regs, desc_a, desc_b, scale_d, ...)                   \
  asm volatile(                                                                                     \
      "{\n"                                                                                         \
      ".reg .pred p;\n"                                                                             \
      "setp.ne.b32 p, " scale_d ", 0;\n"                                                            \
      "wgmma.mma_async.sync.aligned.m64n" #n "k16.f32." ptx_types                                   \
      " {" regs "}, " desc_a ", " desc_b ", p, 1, 1, 0, 0;\n"                                       \
      "}\n"                                                                                         \
      : __VA_ARGS__                                                                                 \
      : "l"(desc_a_), "l"(desc_b_), "r"(static_cast<std::int32_t>(scale)))
#define FLASHATTN_WGMMA_SS_F32_ISSUE(n, regs, desc_a, desc_b, scale_d, ...)                 \
  if constexpr (std::is_same_v<Element, cutlass::bfloat16_t>) {                             \
    FLASHATTN_WGMMA_SS_F32_ASM(n, "bf16.bf16", regs, desc_a, desc_b, scale_d, __VA_ARGS__); \
  } else {                                                                                  \
    FLASHATTN_WGMMA_SS_F32_ASM(n, "f16.f16", regs, desc_a, desc_b, scale_d, __VA_ARGS__);   \
  }
#else
#define FLASHATTN_WGMMA_SS_F32_ISSUE(...) CUTE_INVALID_CONTROL_PATH("WgmmaSsF32 needs sm_90a");
#endif
// clang-format on

// WgmmaSsF32<Element, n> with CuTe's register contract: fma takes the descriptors, then the n / 2
// accumulators one by one, then the scale of the accumulators.
#define FLASHATTN_WGMMA_SS_F32_ATOM(n, desc_a, desc_b, scale_d)                                             \
  template <class Element>                                                                                  \
  struct WgmmaSsF32<Element, n> {                                                                           \
    static_assert(std::is_same_v<Element, cutlass::half_t> || std::is_same_v<Element, cutlass::bfloat16_t>, \
                  "fp16 or bf16 operands");                                                                 \
    using DRegisters = void;                                                                                \
    using ARegisters = std::uint64_t[1];                                                                    \
    using BRegisters = std::uint64_t[1];                                                                    \
    using CRegisters = float[n / 2];                                                                        \
                                                                                                            \
    CUTE_HOST_DEVICE static void fma(std::uint64_t const& desc_a_, std::uint64_t const& desc_b_,            \
                                     FLASHATTN_WGMMA_N##n##_PARAMS,                                         \
                                     cute::GMMA::ScaleOut const scale = cute::GMMA::ScaleOut::One) {        \
      FLASHATTN_WGMMA_SS_F32_ISSUE(n, FLASHATTN_WGMMA_N##n##_REGS, desc_a, desc_b, scale_d,                 \
                                   FLASHATTN_WGMMA_N##n##_OUTPUTS)                                          \
    }                                                                                                       \
  };

FLASHATTN_WGMMA_SS_F32_ATOM(80, "%40", "%41", "%42")
FLASHATTN_WGMMA_SS_F32_ATOM(112, "%56", "%57", "%58")
FLASHATTN_WGMMA_SS_F32_ATOM(144, "%72", "%73", "%74")

#undef FLASHATTN_WGMMA_SS_F32_ATOM
#undef FLASHATTN_WGMMA_SS_F32_ISSUE
#undef FLASHATTN_WGMMA_SS_F32_ASM
#undef FLASHATTN_WGMMA_N80_PARAMS
#undef FLASHATTN_WGMMA_N80_OUTPUTS
#undef FLASHATTN_WGMMA_N80_REGS
#undef FLASHATTN_WGMMA_N112_PARAMS
#undef FLASHATTN_WGMMA_N112_OUTPUTS
#undef FLASHATTN_WGMMA_N112_REGS
#undef FLASHATTN_WGMMA_N144_PARAMS
#undef FLASHATTN_WGMMA_N144_OUTPUTS
#undef FLASHATTN_WGMMA_N144_REGS
#undef FLASHATTN_WGMMA_PARAMS_2
#undef FLASHATTN_WGMMA_PARAMS_6
#undef FLASHATTN_WGMMA_PARAMS_10
#undef FLASHATTN_WGMMA_OUTPUTS_2
#undef FLASHATTN_WGMMA_OUTPUTS_6
#undef FLASHATTN_WGMMA_OUTPUTS_10
#undef FLASHATTN_WGMMA_REGS_2
#undef FLASHATTN_WGMMA_REGS_6
#undef FLASHATTN_WGMMA_REGS_10

/// The wgmma atom of an S = Q·Kᵀ step, (64, kN, kK) per warpgroup with Q and K K-major in shared memory:
/// ours for the widths above, CuTe's selector's for the rest (one instruction for the widths
/// cute_wgmma_n_is_one_instruction lists).
template <class Element, int kN, int kK>
constexpr auto ss_op_k_major_f32() {
  if constexpr (wgmma_extra_width(kN)) {
    return WgmmaSsF32<Element, kN>{};
  } else {
    return cute::GMMA::ss_op_selector<Element, Element, float,
                                      cute::Shape<cute::_64, cute::Int<kN>, cute::Int<kK>>>();
  }
}

/// Whether ss_op_k_major_f32 issues an N-wide tile as one m64nNk16 instruction per k-step.
constexpr bool ss_op_k_major_is_one_instruction(int n) {
  return wgmma_extra_width(n) || cute_wgmma_n_is_one_instruction(n);
}

}  // namespace flashattn::cuda::sm90

namespace cute {

/// CuTe's traits of a WgmmaSsF32 atom: those of its own m64nNk16 SS atoms.
template <class Element, int kN>
struct MMA_Traits<flashattn::cuda::sm90::WgmmaSsF32<Element, kN>> {
  using ValTypeD = float;
  using ValTypeA = Element;
  using ValTypeB = Element;
  using ValTypeC = float;

  using FrgTypeA = GMMA::smem_desc<GMMA::Major::K>;
  using FrgTypeB = GMMA::smem_desc<GMMA::Major::K>;

  using Shape_MNK = Shape<_64, Int<kN>, _16>;
  using ThrID = Layout<_128>;
  using ALayout = GMMA::ABLayout<64, 16>;
  using BLayout = GMMA::ABLayout<kN, 16>;
  using CLayout = GMMA::CLayout_64xN<kN>;

  GMMA::ScaleOut accumulate_ = GMMA::ScaleOut::One;
};

}  // namespace cute
