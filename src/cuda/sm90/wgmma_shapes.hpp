// flashattn — which wgmma widths CuTe's selectors issue as one instruction per k-step. The kernels'
// layouts static_assert it for every GEMM, so a tile that would silently run as narrow pieces fails to
// compile instead.
#pragma once

namespace flashattn::cuda::sm90 {

/// Whether CuTe's ss_op_selector / rs_op_selector map an N-wide tile to one m64nNk16 instruction: always
/// for N in {8, 16, 32, 64, 96, 128, 192, 256}; for the other multiples of 8 up to 256 only in a TU that
/// defines CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED, which costs every TU ~20 s of compile time and is set only
/// by the ablation builds that need it (cmake/FlashattnCuda.cmake). Without it such an N becomes m64n16 or
/// m64n8 pieces. The forward's long-key tiles take their Q·Kᵀ widths (80, 112, 144) from
/// wgmma_extra_widths.hpp instead.
constexpr bool cute_wgmma_n_is_one_instruction(int n) {
#if defined(CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED)
  return n >= 8 && n <= 256 && n % 8 == 0;
#else
  return n == 8 || n == 16 || n == 32 || n == 64 || n == 96 || n == 128 || n == 192 || n == 256;
#endif
}

}  // namespace flashattn::cuda::sm90
