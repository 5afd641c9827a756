// Kernel selection against a described device (no GPU needed): a built kernel whose shared memory per block
// exceeds the device's opt-in limit is never selected, is_supported() and run() refuse it alike with the
// kernel and both sizes named, and a Hopper kernel that does not fit falls back visibly (or is an error
// under FLASHATTN_STRICT or the explicit Hopper path); a D != Dv problem takes only its pair's kernel. The
// kernels' sizes come from the generated registry, so the CUDA cases run wherever the CUDA backend is
// compiled, GPU or not.
#include <gtest/gtest.h>

#include <string>

#include "core/dispatch.hpp"

namespace flashattn::core {
namespace {

constexpr int kHeadDim = 128;

/// The smallest validated problem select_kernel looks at: bf16, D = Dv = 128, aligned (null) pointers.
BackwardParams problem() {
  BackwardParams params;
  params.dtype = DType::bf16;
  params.batch = 1;
  params.heads = params.heads_kv = 1;
  params.head_dim = params.head_dim_v = kHeadDim;
  params.max_seqlen_q = params.max_seqlen_k = 128;
  const OperandStrides strides{128 * kHeadDim, kHeadDim, kHeadDim};
  params.q_strides = params.k_strides = params.v_strides = params.out_strides = strides;
  params.dout_strides = params.dq_strides = params.dk_strides = params.dv_strides = strides;
  return params;
}

DeviceContext device(int arch, int max_smem_per_block) {
  DeviceContext context;
  context.kind = DeviceKind::cuda;
  context.arch = arch;
  context.cuda_built = true;
  context.device_present = true;
  context.max_smem_per_block = max_smem_per_block;
  return context;
}

KernelKey key(OpKind op, int arch) { return {Backend::cuda, op, DType::bf16, arch, kHeadDim}; }

/// select_kernel() of `op` with its own params type.
Selection select(OpKind op, const DeviceContext& context) {
  const BackwardParams params = problem();
  if (op == OpKind::backward) return select_kernel(op, params, context);
  if (op == OpKind::kvcache) {
    KVCacheParams kvcache;
    static_cast<ForwardParams&>(kvcache) = params;
    return select_kernel(op, kvcache, context);
  }
  return select_kernel(op, static_cast<const ForwardParams&>(params), context);
}

TEST(Dispatch, KernelSharedMemoryComesFromTheRegistry) {
  EXPECT_EQ(kernel_smem_bytes({Backend::cpu, OpKind::forward, DType::fp32, 0, 0}), 0);
  EXPECT_EQ(kernel_smem_bytes({Backend::cuda, OpKind::forward, DType::bf16, 80, 40}), -1) << "never built";
  for (const OpKind op : {OpKind::forward, OpKind::backward, OpKind::kvcache}) {
    for (const int arch : {80, 90}) {
      const int bytes = kernel_smem_bytes(key(op, arch));
      if (bytes < 0) continue;  // not in this build's manifest
      EXPECT_GT(bytes, 0) << key(op, arch).name();
      EXPECT_LE(bytes, 227 * 1024) << key(op, arch).name() << ": more than any GPU gives one block";
    }
  }
}

TEST(Dispatch, PortableKernelThatDoesNotFitTheDeviceIsRefusedWithBothSizes) {
  for (const OpKind op : {OpKind::forward, OpKind::backward, OpKind::kvcache}) {
    const int needed = kernel_smem_bytes(key(op, 80));
    if (needed < 0) GTEST_SKIP() << key(op, 80).name() << " is not built";
    const Selection refused = select(op, device(86, needed - 1));
    EXPECT_FALSE(refused.key) << key(op, 80).name();
    EXPECT_EQ(refused.status.code(), StatusCode::unsupported);
    const std::string& message = refused.status.message();
    EXPECT_NE(message.find(key(op, 80).name()), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(needed) + " bytes of shared memory"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(needed - 1)), std::string::npos) << message;

    for (const int limit : {needed, 0}) {  // exactly enough, and a limit the device did not report
      const Selection taken = select(op, device(86, limit));
      ASSERT_TRUE(taken.key) << taken.status.message();
      EXPECT_EQ(*taken.key, key(op, 80));
      EXPECT_FALSE(taken.fell_back);
    }
  }
}

TEST(Dispatch, HopperKernelThatDoesNotFitFallsBackVisiblyOrIsAnError) {
  const int hopper = kernel_smem_bytes(key(OpKind::forward, 90));
  const int portable = kernel_smem_bytes(key(OpKind::forward, 80));
  if (hopper < 0 || portable < 0) GTEST_SKIP() << "needs both forward kernels of D = 128 in the build";
  ASSERT_LT(portable, hopper) << "the case below needs a limit between the two kernels' needs";
  const DeviceContext small = device(90, hopper - 1);

  const Selection automatic = select(OpKind::forward, small);
  ASSERT_TRUE(automatic.key) << automatic.status.message();
  EXPECT_EQ(*automatic.key, key(OpKind::forward, 80));
  EXPECT_TRUE(automatic.fell_back);
  EXPECT_NE(automatic.fallback_reason.find("shared memory"), std::string::npos) << automatic.fallback_reason;

  DeviceContext strict = small;
  strict.strict = true;
  const Selection refused = select(OpKind::forward, strict);
  EXPECT_FALSE(refused.key);
  EXPECT_NE(refused.status.message().find("FLASHATTN_STRICT"), std::string::npos) << refused.status.message();

  DeviceContext hopper_path = small;
  hopper_path.path = CudaPath::hopper;
  const Selection requested = select(OpKind::forward, hopper_path);
  EXPECT_FALSE(requested.key);
  EXPECT_NE(requested.status.message().find("shared memory"), std::string::npos)
      << requested.status.message();

  const Selection fits = select(OpKind::forward, device(90, hopper));
  ASSERT_TRUE(fits.key) << fits.status.message();
  EXPECT_EQ(*fits.key, key(OpKind::forward, 90));
  EXPECT_FALSE(fits.fell_back);
}

// A D != Dv problem takes only a kernel built for its pair (D 192 / Dv 128: the Hopper and the portable
// forward and the portable backward, where built); without one, and for decoding, an error naming v, the
// pair and why each path refuses.
TEST(Dispatch, HeadDimPairsTakeOnlyTheirOwnKernel) {
  EXPECT_EQ((KernelKey{Backend::cuda, OpKind::forward, DType::bf16, 90, 192, 128}.name()),
            "fwd_sm90_bf16_hd192_dv128");
  BackwardParams pair = problem();
  pair.head_dim = 192;
  pair.head_dim_v = 128;
  const ForwardParams& forward = pair;
  const KernelKey hopper{Backend::cuda, OpKind::forward, DType::bf16, 90, 192, 128};
  const KernelKey portable{Backend::cuda, OpKind::forward, DType::bf16, 80, 192, 128};
  const bool hopper_built = kernel_smem_bytes(hopper) > 0;
  const bool portable_built = kernel_smem_bytes(portable) > 0;

  auto expect_refused = [](const Selection& selection, const std::string& why) {
    EXPECT_FALSE(selection.key);
    EXPECT_EQ(selection.status.code(), StatusCode::unsupported);
    const std::string& message = selection.status.message();
    EXPECT_EQ(message.rfind("v: head_dim_v 128 differs from head_dim 192", 0), 0u) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  };
  auto expect_key = [](const Selection& selection, const KernelKey& key, bool fell_back) {
    ASSERT_TRUE(selection.key) << selection.status.message();
    EXPECT_EQ(*selection.key, key);
    EXPECT_EQ(selection.fell_back, fell_back) << selection.fallback_reason;
  };
  // An H100: the Hopper kernel of the pair, else the portable one as a visible fallback.
  const Selection on_hopper = select_kernel(OpKind::forward, forward, device(90, 0));
  if (hopper_built) {
    expect_key(on_hopper, hopper, false);
  } else if (portable_built) {
    expect_key(on_hopper, portable, true);
  } else {
    expect_refused(on_hopper,
                   "no sm90 kernel is built for fwd_sm90_bf16_hd192_dv128, and no portable kernel is "
                   "built for fwd_sm80_bf16_hd192_dv128");
  }
  // An A100 and the portable path asked for on an H100: the portable kernel of the pair or nothing.
  DeviceContext portable_path = device(90, 0);
  portable_path.path = CudaPath::portable;
  for (const DeviceContext& context : {device(80, 0), portable_path}) {
    const Selection selection = select_kernel(OpKind::forward, forward, context);
    if (portable_built) {
      expect_key(selection, portable, false);
    } else {
      expect_refused(selection,
                     context.arch == 80 ? "the device is not sm90" : "no portable kernel is built");
    }
  }
  // The backward: the portable kernel of the pair, a visible fallback on an H100 (no sm90 backward takes it).
  const KernelKey portable_backward{Backend::cuda, OpKind::backward, DType::bf16, 80, 192, 128};
  const Selection backward = select_kernel(OpKind::backward, pair, device(90, 0));
  if (kernel_smem_bytes(portable_backward) > 0) {
    expect_key(backward, portable_backward, true);
  } else {
    expect_refused(backward, "no sm90 kernel is built for bwd_sm90_bf16_hd192_dv128");
  }
  // No decode kernel takes the pair.
  KVCacheParams kvcache;
  static_cast<ForwardParams&>(kvcache) = pair;
  expect_refused(select_kernel(OpKind::kvcache, kvcache, device(90, 0)), "kvcache_sm80_bf16_hd192_dv128");
}

}  // namespace
}  // namespace flashattn::core
